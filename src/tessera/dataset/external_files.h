// External files: Parquet files a dataset references without owning them (docs/external.md).
//
// Registering a file reads its footer, and the columns read as vectors to check every row, and
// returns a fragment whose one DataFile names the file and records its fingerprint: size,
// modification time and the SHA-256 of its footer (format/manifest.proto, ExternalFile).
// Nothing is copied. Commits never write or remove an external file (NewFiles leaves them out),
// cleanup only ever removes files inside the dataset's own directories, and compaction leaves
// external fragments alone.
//
// The fingerprint is checked when a reader opens the file (size and time, external_parquet.h)
// and, for every external file of a version, when the version is opened (CheckExternalFiles:
// the footer's digest too): a file that changed is Stale, naming it. The second check is cached
// per process: a file whose fingerprint passed is not checked again for
// ExternalCheckInterval().
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

struct ExternalOptions {
  // Columns the files hold as list<float|float16> (as Spark writes embeddings) to read as
  // vectors of this many values: fixed_size_list in the dataset's schema. Only a create
  // declares them; an append reads the dataset's schema.
  std::map<std::string, int32_t> vector_dimensions;
  // Read rows of those columns with the wrong number of values or a null value as null vectors
  // (never returned by a search; counted at registration) instead of refusing the file.
  bool bad_vectors_as_null = false;
};

inline bool IsExternal(const format::Fragment& fragment) {
  return fragment.files_size() == 1 && fragment.files(0).has_external();
}

// Whether `fragment` of a dataset on `storage` is read from object storage: the dataset is
// there, or the fragment is an external object. Such reads wait on the store, not the CPU.
bool ReadsFromObjectStorage(const io::Storage& storage, const format::Fragment& fragment);

// The files named by `patterns`, each a path or a glob(3) pattern (its matches sorted), in the
// order given and each once, made absolute. InvalidArgument naming a pattern that matches no
// file; NotFound for a path that does not exist.
// An `s3://bucket/key` pattern names objects: wildcards only in its last segment, matched
// (fnmatch(3)) against the objects directly under the directory before it; a URI without
// wildcards is taken as it is (its open says whether it exists).
arrow::Result<std::vector<std::string>> ExpandExternalPaths(
    const std::vector<std::string>& patterns);

// The location a file named by `path_or_uri` is recorded under: an s3:// URI as it is (checked:
// InvalidArgument for a malformed one), a path made absolute and normalized.
arrow::Result<std::string> NormalizedExternalLocation(const std::string& path_or_uri);

// The schema a dataset created over external file `path` gets: the file's columns as Arrow
// reads them, with the columns of options.vector_dimensions as vectors. InvalidArgument for a
// declared column the file lacks or holds as something else than a list of floats.
arrow::Result<std::shared_ptr<arrow::Schema>> ExternalFileSchema(const std::string& path,
                                                                 const ExternalOptions& options);

// The rows per batch an external file is read in, near `requested`: when its row groups all
// hold one number of rows (the last may hold fewer), the divisor of that number nearest to the
// request within a factor of two, so that batches tile the row groups and each is a slice of
// one decoded piece (external_batches.h); otherwise the request.
uint64_t TilingRowsPerBatch(const std::vector<int64_t>& row_group_rows, uint64_t requested);

// A fragment (id 0: the commit assigns it) over external file `path` (absolute), whose columns
// must match `schema` (external_columns.h); its vector columns are read to check every row. Its
// rows per batch are TilingRowsPerBatch of `rows_per_batch`.
// With `bad_vectors_as_null`, bad vector rows are read as null vectors (now and at every read)
// and counted in ExternalFile.bad_vectors; otherwise the first is an error.
// Errors name the file: InvalidArgument for another schema, a bad vector row, a file inside
// the dataset's own directories or of more rows than a fragment addresses; Corrupt for a file
// that is not readable Parquet.
arrow::Result<format::Fragment> RegisterExternalFile(const io::Storage& storage,
                                                     const std::string& path,
                                                     const std::shared_ptr<arrow::Schema>& schema,
                                                     uint64_t rows_per_batch,
                                                     bool bad_vectors_as_null = false);

// How long a passed check of a version's external files is trusted: TESSERA_EXTERNAL_CHECK_
// SECONDS when set (0 checks at every open), else 10 seconds.
std::chrono::seconds ExternalCheckInterval();

// Checks the fingerprint of every external file of `manifest` (Stale naming the first that
// changed), skipping files whose fingerprint passed within ExternalCheckInterval().
arrow::Status CheckExternalFiles(const format::Manifest& manifest);

}  // namespace tessera::dataset
