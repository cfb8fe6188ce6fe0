#include "tessera/format/paths.h"

#include <charconv>
#include <cstdio>

#include "tessera/io/s3_settings.h"
#include "tessera/status.h"

namespace tessera::format {

namespace {
constexpr std::string_view kManifestSuffix = ".manifest";
constexpr size_t kVersionDigits = 20;
constexpr size_t kUuidLength = 36;
constexpr size_t kMaxFileNameLength = 255;
constexpr size_t kMaxPrintable = 80;

bool IsUuidDash(size_t position) {
  return position == 8 || position == 13 || position == 18 || position == 23;
}

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool IsNameCharacter(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_' || c == '.';
}

std::string Quoted(std::string_view text) { return "'" + Printable(text) + "'"; }

}  // namespace

std::string ManifestPath(uint64_t version) {
  char digits[kVersionDigits + 1];
  std::snprintf(digits, sizeof(digits), "%020llu", static_cast<unsigned long long>(version));
  return std::string(kVersionsDir) + "/" + digits + std::string(kManifestSuffix);
}

std::optional<uint64_t> ParseManifestName(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  if (path.size() != kVersionDigits + kManifestSuffix.size() ||
      path.substr(kVersionDigits) != kManifestSuffix) {
    return std::nullopt;
  }
  uint64_t version = 0;
  const char* end = path.data() + kVersionDigits;
  auto [pointer, error] = std::from_chars(path.data(), end, version);
  if (error != std::errc() || pointer != end) return std::nullopt;
  return version;
}

std::string TransactionPath(uint64_t read_version, std::string_view uuid) {
  return std::string(kTransactionsDir) + "/" + std::to_string(read_version) + "-" +
         std::string(uuid) + ".txn";
}

std::string DataFilePath(std::string_view uuid) {
  return std::string(kDataDir) + "/" + std::string(uuid) + ".arrow";
}

std::string DeletionFilePath(uint32_t fragment_id, uint64_t version, std::string_view uuid) {
  return std::string(kDeletionsDir) + "/" + std::to_string(fragment_id) + "-" +
         std::to_string(version) + "-" + std::string(uuid) + ".bin";
}

std::string Printable(std::string_view text) {
  std::string shown = EscapeControlCharacters(text.substr(0, kMaxPrintable));
  if (text.size() > kMaxPrintable) shown += "...";
  return shown;
}

bool IsCanonicalUuid(std::string_view text) {
  if (text.size() != kUuidLength) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsUuidDash(i) ? text[i] != '-' : !IsLowerHex(text[i])) return false;
  }
  return true;
}

std::string UuidDefect(std::string_view text) {
  if (text.empty()) return "is empty";
  if (text.size() != kUuidLength) {
    return "has " + std::to_string(text.size()) + " characters, not " + std::to_string(kUuidLength);
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (IsUuidDash(i) && c != '-') {
      return "has " + Quoted(std::string_view(&c, 1)) + " where a '-' belongs (position " +
             std::to_string(i + 1) + ")";
    }
    if (!IsUuidDash(i) && !IsLowerHex(c)) {
      const bool upper = c >= 'A' && c <= 'F';
      return "has " + Quoted(std::string_view(&c, 1)) + " at position " + std::to_string(i + 1) +
             (upper ? ", an uppercase digit" : ", not a hexadecimal digit");
    }
  }
  return "";
}

arrow::Status CheckUuid(std::string_view uuid, std::string_view what) {
  const std::string defect = UuidDefect(uuid);
  if (defect.empty()) return arrow::Status::OK();
  return InvalidArgument(what, " ", Quoted(uuid), " is not a canonical UUID: it ", defect,
                         "; a uuid has the form ", kUuidForm, " in lowercase hexadecimal");
}

std::string FilePathDefect(std::string_view path, std::string_view directory) {
  if (path.empty()) return "is empty";
  if (path.size() <= directory.size() + 1 || path.substr(0, directory.size()) != directory ||
      path[directory.size()] != '/') {
    return "is not inside " + std::string(directory) + "/";
  }
  const std::string_view name = path.substr(directory.size() + 1);
  if (name.size() > kMaxFileNameLength) return "has a file name longer than 255 characters";
  if (name.front() == '.') return "names a file starting with '.' (or '..')";
  for (char c : name) {
    if (c == '/') return "is not directly inside " + std::string(directory) + "/";
    if (!IsNameCharacter(c)) {
      return "has " + Quoted(std::string_view(&c, 1)) +
             " in its file name (letters, digits, '-', '_' and '.' only)";
    }
  }
  return "";
}

arrow::Status CheckManifestNames(const Manifest& manifest, std::string_view manifest_path) {
  auto fail = [&](const std::string& what, std::string_view value, const std::string& defect) {
    return Corrupt("manifest ", manifest_path, ": ", what, " ", Quoted(value), " ", defect,
                   "; the manifest was not written by tessera or is damaged");
  };
  if (!manifest.dataset_uuid().empty()) {
    const std::string defect = UuidDefect(manifest.dataset_uuid());
    if (!defect.empty()) return fail("the dataset uuid", manifest.dataset_uuid(), defect);
  }
  if (!manifest.transaction_file().empty()) {
    const std::string defect = FilePathDefect(manifest.transaction_file(), kTransactionsDir);
    if (!defect.empty()) return fail("the transaction file", manifest.transaction_file(), defect);
  }
  for (const auto& fragment : manifest.fragments()) {
    const std::string where = "fragment " + std::to_string(fragment.id());
    for (const auto& file : fragment.files()) {
      if (file.has_external()) {
        // Read, never written or removed: any absolute path or s3:// URI without a NUL will
        // do (a malformed URI is refused when the file is opened).
        const std::string& location = file.external().location();
        const bool object = io::IsS3Uri(location);
        if (!file.path().empty() || location.empty() || (location[0] != '/' && !object) ||
            location.find('\0') != std::string::npos) {
          return fail(where + " names external file", location,
                      "that is not an absolute path or s3:// URI (or also names a data file)");
        }
        continue;
      }
      const std::string defect = FilePathDefect(file.path(), kDataDir);
      if (!defect.empty()) return fail(where + " names data file", file.path(), defect);
    }
    if (fragment.has_deletion() && !fragment.deletion().path().empty()) {
      const std::string defect = FilePathDefect(fragment.deletion().path(), kDeletionsDir);
      if (!defect.empty()) {
        return fail(where + " names deletion file", fragment.deletion().path(), defect);
      }
    }
  }
  for (const auto& index : manifest.indexes()) {
    for (const auto& segment : index.segments()) {
      const std::string defect = UuidDefect(segment.uuid());
      if (!defect.empty()) {
        return fail("index " + Quoted(index.name()) + " names segment", segment.uuid(), defect);
      }
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::format
