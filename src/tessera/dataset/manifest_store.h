// Reading and writing the versioned metadata of a dataset: manifests and transactions.
//
// A manifest is published by creating _versions/<version>.manifest with put-if-absent, so of
// all writers racing for a version exactly one succeeds. The latest version is the largest
// manifest name present; temporary files of writers in flight are ignored.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/format/transaction.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// 2: data files have block checksums (`<file>.crc32c`) and manifests a dataset identity.
// Format 1 datasets are refused with Unsupported: their files have no checksums to verify.
inline constexpr uint32_t kManifestFormatVersion = 2;
// 3: a data file may be external (DataFile.external, docs/external.md). A build that reads only
// 2 would ignore that field and take the user's Parquet file for a file of its own, so a
// manifest naming an external file is written at 3 and one without at 2: datasets without
// external files stay readable by such builds.
inline constexpr uint32_t kExternalFilesFormatVersion = 3;
// 4: an external file may be an object on S3-compatible storage (an `s3://` location pinned to
// its ETag, docs/objstore.md). A build that reads only 3 would refuse such a location as a
// damaged manifest; at 4 it says the dataset needs a newer tessera.
inline constexpr uint32_t kExternalObjectsFormatVersion = 4;

// The format version `manifest` is written at: the oldest that can express it.
uint32_t FormatVersionFor(const format::Manifest& manifest);

// Committed version numbers, ascending.
arrow::Result<std::vector<uint64_t>> ListVersionNumbers(const io::Storage& storage);
// The newest committed version; nullopt when the root holds no dataset.
arrow::Result<std::optional<uint64_t>> LatestVersionNumber(const io::Storage& storage);

// NotFound when absent; Corrupt when damaged, when it is not the version asked for, when it
// names paths outside the root or has a creation time outside 1970..2262; Unsupported when of
// another format version.
arrow::Result<std::shared_ptr<const format::Manifest>> ReadManifest(const io::Storage& storage,
                                                                    uint64_t version);
// Publishes `manifest` as its version; false (nothing visible) when that version exists.
arrow::Result<bool> TryPublishManifest(io::Storage& storage, const format::Manifest& manifest);

arrow::Result<format::Transaction> ReadTransaction(const io::Storage& storage,
                                                   const std::string& path);
arrow::Status WriteTransaction(io::Storage& storage, const format::Transaction& transaction,
                               const std::string& path);

int64_t NowMicros();

}  // namespace tessera::dataset
