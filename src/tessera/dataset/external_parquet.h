// ExternalParquetFile: one opened external Parquet file (docs/external.md): its fingerprint, its
// footer's metadata, and reads of its row groups.
//
// A location is an absolute local path or an object's `s3://bucket/key` URI (docs/objstore.md).
//
// A local file is read with pread(2), never memory-mapped: it belongs to someone else, and a file
// truncated under a mapping kills the process with SIGBUS where a short read is an error.
//
// Opening checks the fingerprint the manifest recorded (ExternalFile): a missing file, another
// size or another modification time is Stale naming the file and what changed (the footer's
// digest tells a rewrite from a touch in the message). A new time with the same footer is
// still a change: a rewrite can keep every footer byte (rows reordered within pages of equal
// sizes), and a wrong answer costs more than a `tessera refresh`. Equal size and time is the
// fast path; the footer's digest is also compared when asked (a copy that kept the time of
// another file of the same size).
//
// The parsed footer, and the offset indexes read so far (external_pages.h), are shared by every
// reader of the process through a small cache keyed by (location, size, modification time;
// for an object also its ETag), so
// repeated queries do not parse them again; registration
// and checks of the footer's digest parse it anew. Every row group read checks first that the
// file still has the size and time it had when opened (Stale otherwise): a file rewritten in
// place under a long-lived reader is never decoded through its old footer.
//
// An object on S3-compatible storage is read through the process's object cache, every fetch
// pinned to the ETag its fingerprint records (If-Match, io/s3_store.h): its ETag plays the part
// of a local file's modification time, and since no fetch can return another version's bytes,
// a reader opening it with a recorded ETag sends no HEAD and CheckUnchanged checks nothing.
//
// Thread-safe: ReadRowGroup opens its own Parquet reader over the shared file and metadata.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <parquet/metadata.h>
#include <parquet/page_index.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/s3_settings.h"

namespace tessera::dataset {

// Where column chunk `chunk` starts in its file: its dictionary page when it has one (as Arrow's
// reader takes it), else its first data page.
int64_t ColumnChunkStart(const parquet::ColumnChunkMetaData& chunk);

// Whether a failure reading an external file is the storage's (unreachable, throttled, refused)
// or the file changing under the reader, reported as it is, rather than a finding about the
// bytes read (which readers report as Corrupt): a throttled read never reads as damaged data.
bool IsFailureToRead(const arrow::Status& status);

// Whether an external file's location names an object (`s3://`) rather than a local path.
inline bool IsObjectLocation(const std::string& location) { return io::IsS3Uri(location); }

class ExternalParquetFile {
 public:
  // Offset indexes of one content of a file, by row group, each by leaf column (null: none; an
  // absent row group is not read yet). Shared by every opening of that content in the process,
  // with its footer.
  struct OffsetIndexes {
    std::mutex mutex;
    std::map<int, std::vector<std::shared_ptr<parquet::OffsetIndex>>> groups;
  };

  // Pages are read through a buffer of this size.
  static constexpr int64_t kReadBufferBytes = 1 << 20;

  // `location`: an absolute path. `expected`: the DataFile whose fingerprint the file must
  // match (null when registering it); `check_footer`: also compare the footer's digest when
  // size and time match.
  static arrow::Result<std::shared_ptr<ExternalParquetFile>> Open(
      const std::string& location, const format::DataFile* expected = nullptr,
      bool check_footer = false);

  const std::string& location() const { return location_; }
  int64_t size_bytes() const { return size_bytes_; }
  int64_t modified_nanos() const { return modified_nanos_; }
  // An object's ETag; empty for a local file.
  const std::string& etag() const { return etag_; }
  // SHA-256 of the footer (metadata, its length and the magic), read again from the file.
  arrow::Result<std::string> FooterDigest() const;

  const parquet::FileMetaData& metadata() const { return *metadata_; }
  int64_t num_rows() const { return metadata_->num_rows(); }
  int num_row_groups() const { return metadata_->num_row_groups(); }
  // The row offset of row group `index`'s first row; index num_row_groups() gives num_rows().
  int64_t row_group_start(int index) const { return row_group_starts_[index]; }
  // The file's columns as Arrow reads them (no metadata).
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }

  // Columns `fields` (positions in schema()) of row group `index`, in the order given, as Arrow
  // reads them, in pieces of `piece_rows` rows (the last may be shorter). Corrupt naming the
  // file when it cannot be decoded; Stale when it changed since it was opened.
  arrow::Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadRowGroup(
      int index, const std::vector<int>& fields, int64_t piece_rows) const;

  // The Parquet leaf columns of field `field` (a position in schema()), ascending.
  const std::vector<int>& leaves(int field) const { return leaves_[field]; }

  // The offset index (page locations) of leaf column `leaf` in row group `group`; null when the
  // file has none for it, or one that cannot be parsed or contradicts the footer (pages outside
  // the column chunk or not end to end, row indexes not ascending from 0): the row group is then
  // decoded whole. Read once per row group and kept with the footer, for every query of the
  // process.
  std::shared_ptr<parquet::OffsetIndex> OffsetIndex(int group, int leaf) const;

  // `length` bytes at `offset`, read with pread; Corrupt when the file is shorter.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadRange(int64_t offset, int64_t length) const;

  // Stale unless the file at the location still has the size and modification time it had
  // when opened (checked before each row group is decoded).
  arrow::Status CheckUnchanged() const;

  // Corrupt naming the file, for `what` went wrong reading it.
  arrow::Status CorruptError(const std::string& what) const;

 private:
  ExternalParquetFile() = default;
  // Open's first step for a local file and for an object: sets the size, the time (and the
  // ETag) and input_. `stale` makes the error of a file that changed.
  arrow::Status OpenLocal(const format::DataFile* expected,
                          const std::function<arrow::Status(std::string)>& stale);
  arrow::Status OpenObject(const format::DataFile* expected, bool check_footer,
                           const std::function<arrow::Status(std::string)>& stale);

  std::string location_;
  int64_t size_bytes_ = 0;
  int64_t modified_nanos_ = 0;
  std::string etag_;
  std::shared_ptr<arrow::io::RandomAccessFile> input_;
  std::shared_ptr<parquet::FileMetaData> metadata_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int64_t> row_group_starts_;
  std::vector<std::vector<int>> leaves_;  // by field of schema_: its Parquet leaf columns
  std::shared_ptr<OffsetIndexes> offset_indexes_;
};

}  // namespace tessera::dataset
