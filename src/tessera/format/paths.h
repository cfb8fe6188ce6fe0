// Names of the files inside a dataset root (docs/design.md, "On-disk format").
//
//   _versions/<version, 20 digits>.manifest
//   _transactions/<read_version>-<uuid>.txn
//   data/<uuid>.arrow
//   _deletions/<fragment_id>-<version>-<uuid>.bin
//
// Deletion files carry a uuid besides the version they were written for: two writers racing
// for the same version may both write a deletion vector of the same fragment, and neither may
// overwrite the other's file (only one of them will win the manifest).
//
// Names taken from metadata (a manifest, a segment JSON) are untrusted: a uuid becomes a path
// only once it is a canonical UUID, and a stored file path is used only once it names a plain
// file directly inside its directory, so no metadata can make tessera read or write outside
// the dataset root.
#pragma once

#include <arrow/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/format/manifest.pb.h"

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

// The form io::NewUuid writes: 36 characters, lowercase hexadecimal digits in groups of
// 8-4-4-4-12 separated by '-'. Uppercase is refused too: uuids are compared as strings, and two
// spellings of one uuid would name one directory on a case-insensitive filesystem.
inline constexpr std::string_view kUuidForm = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
bool IsCanonicalUuid(std::string_view text);
// What is wrong with `text` as a uuid, as a clause ("is empty", "has 37 characters; ...");
// empty when it is canonical.
std::string UuidDefect(std::string_view text);
// InvalidArgument naming `what` ("segment uuid") unless `uuid` is canonical.
arrow::Status CheckUuid(std::string_view uuid, std::string_view what);

// What is wrong with `path` as the relative path of a file directly inside `directory`
// ("data/<name>"): an empty, absolute or nested path, "..", or a name with characters other
// than letters, digits, '-', '_' and '.' (or starting with '.'). Empty when it is fine.
std::string FilePathDefect(std::string_view path, std::string_view directory);

// Corrupt, naming the manifest file `manifest_path` and the fragment or index, unless every
// name in `manifest` that becomes a path is well formed: data files under data/, deletion
// files under _deletions/, the transaction under _transactions/, segment uuids canonical, and
// the dataset uuid canonical when present.
arrow::Status CheckManifestNames(const Manifest& manifest, std::string_view manifest_path);

// `text` for a message: its first 80 bytes with control characters and bytes that are not
// UTF-8 escaped (EscapeControlCharacters, status.h), then "..." when it was longer, so that a
// hostile name reaches a terminal neither raw nor at any length.
std::string Printable(std::string_view text);

}  // namespace tessera::format
