// Names of the files inside a dataset root (DESIGN §4).
//
//   _versions/<version, 20 digits>.manifest
//   _transactions/<read_version>-<uuid>.txn
//   data/<uuid>.arrow
//   _deletions/<fragment_id>-<version>-<uuid>.bin
//
// Deletion files carry a uuid besides the version they were written for: two writers racing
// for the same version may both write a deletion vector of the same fragment, and neither may
// overwrite the other's file (only one of them will win the manifest).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::format {

inline constexpr std::string_view kVersionsDir = "_versions";
inline constexpr std::string_view kTransactionsDir = "_transactions";
inline constexpr std::string_view kDataDir = "data";
inline constexpr std::string_view kDeletionsDir = "_deletions";
inline constexpr std::string_view kIndicesDir = "_indices";

std::string ManifestPath(uint64_t version);
// The version named by a manifest file name (with or without directory); nullopt for other
// names, such as the temporary files of a put-if-absent in progress.
std::optional<uint64_t> ParseManifestName(std::string_view path);

std::string TransactionPath(uint64_t read_version, std::string_view uuid);
std::string DataFilePath(std::string_view uuid);
std::string DeletionFilePath(uint32_t fragment_id, uint64_t version, std::string_view uuid);

}  // namespace tessera::format
