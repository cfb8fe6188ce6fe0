#include "tessera/dataset/manifest_store.h"

#include <algorithm>
#include <chrono>

#include "tessera/dataset/external_parquet.h"
#include "tessera/format/parse_message.h"
#include "tessera/format/paths.h"
#include "tessera/io/framed_file.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

template <typename Message>
arrow::Result<Message> ReadFramedMessage(const io::Storage& storage, const std::string& path,
                                         std::string_view what) {
  ARROW_ASSIGN_OR_RAISE(auto file, storage.ReadFile(path));
  const std::string absolute = storage.AbsolutePath(path);
  ARROW_ASSIGN_OR_RAISE(auto payload, io::Unframe(*file, absolute));
  Message message;
  if (!format::ParseMessage(payload, &message)) {
    return Corrupt(what, " ", absolute, " cannot be decoded");
  }
  return message;
}

bool CreationTimeIsRepresentable(int64_t micros) {
  using std::chrono::microseconds;
  using std::chrono::system_clock;
  constexpr int64_t kMaxMicros =
      std::chrono::duration_cast<microseconds>(system_clock::duration::max()).count();
  return micros >= 0 && micros <= kMaxMicros;
}

}  // namespace

uint32_t FormatVersionFor(const format::Manifest& manifest) {
  uint32_t needed = kManifestFormatVersion;
  for (const auto& fragment : manifest.fragments()) {
    for (const auto& file : fragment.files()) {
      if (!file.has_external()) continue;
      if (IsObjectLocation(file.external().location())) return kExternalObjectsFormatVersion;
      needed = kExternalFilesFormatVersion;
    }
  }
  return needed;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

arrow::Result<std::vector<uint64_t>> ListVersionNumbers(const io::Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(format::kVersionsDir));
  std::vector<uint64_t> versions;
  for (const auto& entry : entries) {
    if (auto version = format::ParseManifestName(entry.path)) versions.push_back(*version);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

arrow::Result<std::optional<uint64_t>> LatestVersionNumber(const io::Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto versions, ListVersionNumbers(storage));
  if (versions.empty()) return std::nullopt;
  return versions.back();
}

arrow::Result<std::shared_ptr<const format::Manifest>> ReadManifest(const io::Storage& storage,
                                                                    uint64_t version) {
  const std::string path = format::ManifestPath(version);
  auto manifest = ReadFramedMessage<format::Manifest>(storage, path, "manifest");
  if (!manifest.ok()) {
    if (KindOf(manifest.status()) == ErrorKind::kNotFound) {
      return NotFound("dataset ", storage.root(), " has no version ", version,
                      "; `tessera versions` lists the versions it has");
    }
    return manifest.status();
  }
  const uint32_t found = manifest->format_version();
  if (found < kManifestFormatVersion || found > kExternalObjectsFormatVersion) {
    const std::string reads = Concat("; this build of tessera reads versions ",
                                     kManifestFormatVersion, " to ", kExternalObjectsFormatVersion);
    if (found >= 1) {
      return Unsupported(
          "manifest ", storage.AbsolutePath(path), " has format version ", found, reads,
          found < kManifestFormatVersion
              ? ": the dataset was written before files had block checksums; export its rows "
                "with the tessera that wrote it (`tessera scan --format arrow`) and create it "
                "anew with this one"
              : ": the dataset was written by a newer tessera; read it with that one");
    }
    return Corrupt("manifest ", storage.AbsolutePath(path), " has format version ", found, reads);
  }
  if (manifest->version() != version) {
    return Corrupt("manifest ", storage.AbsolutePath(path), " claims to be version ",
                   manifest->version());
  }
  // The creation time becomes a std::chrono::system_clock time point (nanoseconds in
  // libstdc++), so a value past its range would overflow wherever the time is shown.
  if (!CreationTimeIsRepresentable(manifest->created_at_micros())) {
    return Corrupt("manifest ", storage.AbsolutePath(path), " has creation time ",
                   manifest->created_at_micros(),
                   " microseconds since the Unix epoch, outside the years 1970 to 2262 that "
                   "tessera writes");
  }
  // The names in a manifest become paths; a hand-made manifest must not lead outside the root.
  ARROW_RETURN_NOT_OK(format::CheckManifestNames(*manifest, storage.AbsolutePath(path)));
  return std::make_shared<const format::Manifest>(std::move(*manifest));
}

arrow::Result<bool> TryPublishManifest(io::Storage& storage, const format::Manifest& manifest) {
  return storage.PutIfAbsent(format::ManifestPath(manifest.version()),
                             io::Frame(manifest.SerializeAsString()));
}

arrow::Result<format::Transaction> ReadTransaction(const io::Storage& storage,
                                                   const std::string& path) {
  return ReadFramedMessage<format::Transaction>(storage, path, "transaction");
}

arrow::Status WriteTransaction(io::Storage& storage, const format::Transaction& transaction,
                               const std::string& path) {
  return storage.WriteFile(path, io::Frame(transaction.SerializeAsString()));
}

}  // namespace tessera::dataset
