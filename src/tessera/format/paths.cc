#include "tessera/format/paths.h"

#include <charconv>
#include <cstdio>

namespace tessera::format {

namespace {
constexpr std::string_view kManifestSuffix = ".manifest";
constexpr size_t kVersionDigits = 20;
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

}  // namespace tessera::format
