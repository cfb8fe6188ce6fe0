#include "tessera/dataset/external_parquet.h"

#include <arrow/array/concatenate.h>
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <arrow/util/endian.h>
#include <fcntl.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "tessera/io/s3_settings.h"
#include "tessera/io/s3_store.h"
#include "tessera/io/sha256.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

constexpr char kParquetMagic[] = "PAR1";
constexpr int64_t kFooterTail = 8;  // the footer's length (4 bytes) and the magic

// Parsed footers of the process, with the offset indexes read so far, keyed by what identifies
// one content of a file.
class FooterCache {
 public:
  using Key = std::tuple<std::string, int64_t, int64_t>;  // location, size, modified
  struct Parsed {
    std::shared_ptr<parquet::FileMetaData> metadata;
    std::shared_ptr<ExternalParquetFile::OffsetIndexes> offset_indexes;
  };
  static FooterCache& Instance() {
    static FooterCache* cache = new FooterCache();  // never destroyed: used at exit
    return *cache;
  }

  std::optional<Parsed> Find(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return std::nullopt;
    recency_.splice(recency_.begin(), recency_, found->second.recency);
    return found->second.parsed;
  }

  void Keep(const Key& key, Parsed parsed) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(key);
    if (found != entries_.end()) {
      // Parsed anew (a registration): it replaces what the same size and time held before.
      found->second.parsed = std::move(parsed);
      return;
    }
    recency_.push_front(key);
    entries_.emplace(key, Entry{std::move(parsed), recency_.begin()});
    while (entries_.size() > kEntries) {
      entries_.erase(recency_.back());
      recency_.pop_back();
    }
  }

 private:
  // Footers are small (kilobytes to a few megabytes for files of many row groups and columns),
  // offset indexes a few bytes per page.
  static constexpr size_t kEntries = 1024;
  struct Entry {
    Parsed parsed;
    std::list<Key>::iterator recency;
  };
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::list<Key> recency_;
};

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* leaves) {
  if (field.is_leaf()) leaves->push_back(field.column_index);
  for (const auto& child : field.children) CollectLeaves(child, leaves);
}

std::string ErrnoText() { return std::strerror(errno); }

int64_t ModifiedNanos(const struct stat& status) {
  return static_cast<int64_t>(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec;
}

}  // namespace

bool IsFailureToRead(const arrow::Status& status) {
  return HasErrorDetail(status) &&
         (IsStorageOrProcessFailure(status) || KindOf(status) == ErrorKind::kStale ||
          KindOf(status) == ErrorKind::kNotFound);
}

arrow::Status ExternalParquetFile::CorruptError(const std::string& what) const {
  return Corrupt("external file ", location_, ": ", what,
                 "; it is not a readable Parquet file (damaged or rewritten in place). Restore "
                 "it, or run `tessera refresh` to record what it holds now");
}

arrow::Status ExternalParquetFile::OpenLocal(
    const format::DataFile* expected, const std::function<arrow::Status(std::string)>& stale) {
  // O_NONBLOCK: opening a FIFO named by a manifest must not wait for a writer (it is then
  // refused as not a regular file); regular files ignore the flag.
  const int fd = ::open(location_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const bool missing = errno == ENOENT || errno == ENOTDIR;
    if (missing && expected != nullptr) return stale("it no longer exists");
    if (missing) return NotFound("external file ", location_, " does not exist");
    return Error(ErrorKind::kIOError, "cannot open external file ", location_, ": ", ErrnoText());
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    if (expected != nullptr) return stale("it is no longer a regular file");
    return InvalidArgument("external file ", location_, " is not a regular file");
  }
  size_bytes_ = status.st_size;
  modified_nanos_ = ModifiedNanos(status);
  ARROW_ASSIGN_OR_RAISE(input_, arrow::io::ReadableFile::Open(fd));  // owns fd now
  return arrow::Status::OK();
}

arrow::Status ExternalParquetFile::OpenObject(
    const format::DataFile* expected, bool check_footer,
    const std::function<arrow::Status(std::string)>& stale) {
  ARROW_ASSIGN_OR_RAISE(io::S3Object object, io::ParseS3ObjectUri(location_));
  ARROW_ASSIGN_OR_RAISE(auto store, io::S3Store::ForBucket("s3://" + object.bucket));
  io::ObjectVersion version;
  if (expected != nullptr && !check_footer && !expected->external().etag().empty()) {
    // Every fetch is pinned to the recorded ETag (If-Match): a rewritten object is Stale at the
    // first read that reaches the store, so a reader needs no HEAD to trust the fingerprint.
    version.size = static_cast<int64_t>(expected->size_bytes());
    version.etag = expected->external().etag();
    version.modified_nanos = expected->external().modified_nanos();
  } else {
    auto head = store->Head(object.key);
    if (!head.ok()) {
      if (KindOf(head.status()) != ErrorKind::kNotFound) return head.status();
      if (expected != nullptr) return stale("it no longer exists");
      return NotFound("external file ", location_, " does not exist");
    }
    version = std::move(*head);
  }
  size_bytes_ = version.size;
  modified_nanos_ = version.modified_nanos;
  etag_ = version.etag;
  ARROW_ASSIGN_OR_RAISE(input_, store->OpenPinned(object.key, version));
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<ExternalParquetFile>> ExternalParquetFile::Open(
    const std::string& location, const format::DataFile* expected, bool check_footer) {
  std::shared_ptr<ExternalParquetFile> file(new ExternalParquetFile());
  file->location_ = location;
  const auto stale = [&](const std::string& change) {
    return Error(ErrorKind::kStale, "external file ", location,
                 " changed since it was registered: ", change,
                 ". Restore it, or run `tessera refresh` to record what it holds now (its rows "
                 "are then indexed again by `tessera index optimize`)");
  };
  if (IsObjectLocation(location)) {
    ARROW_RETURN_NOT_OK(file->OpenObject(expected, check_footer, stale));
  } else {
    ARROW_RETURN_NOT_OK(file->OpenLocal(expected, stale));
  }
  if (expected != nullptr) {
    if (static_cast<uint64_t>(file->size_bytes_) != expected->size_bytes()) {
      return stale(
          Concat("it is now ", file->size_bytes_, " bytes long, not ", expected->size_bytes()));
    }
    // A local file's version is its modification time, an object's its ETag.
    const bool touched = file->etag_.empty()
                             ? file->modified_nanos_ != expected->external().modified_nanos()
                             : file->etag_ != expected->external().etag();
    // An object's ETag names its content: the same ETag needs no second look at the footer.
    if (touched || (check_footer && file->etag_.empty())) {
      auto digest = file->FooterDigest();
      if (!digest.ok() &&
          (KindOf(digest.status()) == ErrorKind::kIOError || IsFailureToRead(digest.status()))) {
        return digest.status();
      }
      const bool same_footer = digest.ok() && *digest == expected->external().footer_sha256();
      if (!same_footer) return stale("it was rewritten (its footer differs)");
      // A rewrite may keep every byte of the footer (rows reordered within pages of the same
      // sizes): a new modification time alone is a change. A copy that kept the content but not
      // the time is recorded again by refresh.
      if (touched && file->etag_.empty()) {
        return stale(
            "its modification time changed (its footer did not: touched, or copied "
            "without keeping the time)");
      }
      if (touched) {
        return stale(Concat("its ETag is now ", file->etag_, ", not ", expected->external().etag(),
                            " (its footer did not change: written again)"));
      }
    }
  }
  // Registration and refresh read the footer itself: a file rewritten with the same size and
  // time (rsync -t, cp -p) must not get a cached footer of what it held before.
  const bool use_cache = expected != nullptr && !check_footer;
  // An object's ETag names its content: part of the key, so no two versions share a footer.
  const FooterCache::Key key{file->etag_.empty() ? location : location + "#" + file->etag_,
                             file->size_bytes_, file->modified_nanos_};
  if (use_cache) {
    if (auto parsed = FooterCache::Instance().Find(key)) {
      file->metadata_ = std::move(parsed->metadata);
      file->offset_indexes_ = std::move(parsed->offset_indexes);
    }
  }
  try {
    if (file->metadata_ == nullptr) {
      if (file->size_bytes_ < 12) return file->CorruptError("it is too short for a Parquet file");
      file->metadata_ = parquet::ReadMetaData(file->input_);
      file->offset_indexes_ = std::make_shared<OffsetIndexes>();
      FooterCache::Instance().Keep(key, {file->metadata_, file->offset_indexes_});
    }
    parquet::arrow::SchemaManifest manifest;
    ARROW_RETURN_NOT_OK(parquet::arrow::SchemaManifest::Make(
        file->metadata_->schema(), file->metadata_->key_value_metadata(),
        parquet::default_arrow_reader_properties(), &manifest));
    arrow::FieldVector fields;
    for (const auto& field : manifest.schema_fields) {
      fields.push_back(field.field->RemoveMetadata());
      file->leaves_.emplace_back();
      CollectLeaves(field, &file->leaves_.back());
    }
    file->schema_ = arrow::schema(std::move(fields));
  } catch (const parquet::ParquetStatusException& error) {
    if (IsFailureToRead(error.status())) return error.status();
    return file->CorruptError(error.what());
  } catch (const std::exception& error) {
    return file->CorruptError(error.what());
  }
  file->row_group_starts_.push_back(0);
  for (int i = 0; i < file->metadata_->num_row_groups(); ++i) {
    const int64_t rows = file->metadata_->RowGroup(i)->num_rows();
    if (rows < 0) return file->CorruptError(Concat("row group ", i, " has ", rows, " rows"));
    file->row_group_starts_.push_back(file->row_group_starts_.back() + rows);
  }
  if (file->row_group_starts_.back() != file->metadata_->num_rows()) {
    return file->CorruptError(Concat("its row groups hold ", file->row_group_starts_.back(),
                                     " rows; its footer says ", file->metadata_->num_rows()));
  }
  if (expected != nullptr && static_cast<uint64_t>(file->num_rows()) != expected->num_rows()) {
    return stale(Concat("it holds ", file->num_rows(), " rows, not ", expected->num_rows()));
  }
  return file;
}

arrow::Result<std::string> ExternalParquetFile::FooterDigest() const {
  if (size_bytes_ < 12) return CorruptError("it is too short for a Parquet file");
  ARROW_ASSIGN_OR_RAISE(auto tail, input_->ReadAt(size_bytes_ - kFooterTail, kFooterTail));
  if (tail->size() != kFooterTail) return CorruptError("its end cannot be read");
  if (std::memcmp(tail->data() + 4, kParquetMagic, 4) != 0) {
    return CorruptError("it does not end with the Parquet magic (encrypted footers are not read)");
  }
  uint32_t length = 0;
  std::memcpy(&length, tail->data(), sizeof(length));
  length = arrow::bit_util::FromLittleEndian(length);
  if (static_cast<int64_t>(length) > size_bytes_ - 12) {
    return CorruptError(Concat("its footer length ", length, " exceeds the file"));
  }
  const int64_t footer_bytes = static_cast<int64_t>(length) + kFooterTail;
  ARROW_ASSIGN_OR_RAISE(auto footer, input_->ReadAt(size_bytes_ - footer_bytes, footer_bytes));
  if (footer->size() != footer_bytes) return CorruptError("its footer cannot be read");
  return io::Sha256(footer->data(), static_cast<size_t>(footer->size()));
}

arrow::Status ExternalParquetFile::CheckUnchanged() const {
  // An object is read pinned to its ETag: every fetch checks it, and cached bytes are its own.
  if (!etag_.empty()) return arrow::Status::OK();
  auto size = input_->GetSize();
  struct stat status {};
  const bool same = ::stat(location_.c_str(), &status) == 0 && size.ok() && *size == size_bytes_ &&
                    status.st_size == size_bytes_ && ModifiedNanos(status) == modified_nanos_;
  if (same) return arrow::Status::OK();
  return Error(ErrorKind::kStale, "external file ", location_,
               " changed while it was being read (its size or modification time differs). "
               "Restore it, or run `tessera refresh` to record what it holds now");
}

arrow::Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ExternalParquetFile::ReadRowGroup(
    int index, const std::vector<int>& fields, int64_t piece_rows) const {
  // A reader kept open (a snapshot, a server) must not decode new bytes through the footer of
  // what the file held when it was opened: a writer that rewrote it in place changed both.
  ARROW_RETURN_NOT_OK(CheckUnchanged());
  std::vector<int> leaves;
  arrow::FieldVector selected;
  for (int field : fields) {
    leaves.insert(leaves.end(), leaves_[field].begin(), leaves_[field].end());
    selected.push_back(schema_->field(field));
  }
  const auto selected_schema = arrow::schema(selected);
  const int64_t expected_rows = row_group_starts_[index + 1] - row_group_starts_[index];
  std::vector<std::shared_ptr<arrow::RecordBatch>> pieces;
  int64_t rows = 0;
  try {
    // Pages are read through a small buffer rather than each column chunk into memory at once.
    parquet::ReaderProperties reader_properties = parquet::default_reader_properties();
    reader_properties.enable_buffered_stream();
    reader_properties.set_buffer_size(kReadBufferBytes);
    auto parquet_reader = parquet::ParquetFileReader::Open(input_, reader_properties, metadata_);
    parquet::ArrowReaderProperties properties = parquet::default_arrow_reader_properties();
    properties.set_use_threads(false);  // the callers already read batches on several threads
    // An object's reads go through the process cache, which coalesces them already; pre-buffering
    // would issue them on Arrow's IO threads, where each signed request leaves OpenSSL state
    // that is never freed (the threads outlive the process's cleanup).
    if (!etag_.empty()) properties.set_pre_buffer(false);
    // Pieces of the size the caller slices: decoded in pieces, a row group's values are never
    // reallocated as they grow, and a batch that is one piece is taken without a copy.
    properties.set_batch_size(piece_rows);
    auto reader = parquet::arrow::FileReader::Make(arrow::default_memory_pool(),
                                                   std::move(parquet_reader), properties);
    if (!reader.ok()) return CorruptError(reader.status().message());
    auto batches = (*reader)->GetRecordBatchReader({index}, leaves);
    if (!batches.ok() && IsFailureToRead(batches.status())) return batches.status();
    if (!batches.ok()) {
      return CorruptError(Concat("row group ", index, ": ", batches.status().message()));
    }
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      arrow::Status read = (*batches)->ReadNext(&batch);
      if (!read.ok() && IsFailureToRead(read)) return read;
      if (!read.ok()) return CorruptError(Concat("row group ", index, ": ", read.message()));
      if (batch == nullptr) break;
      std::vector<std::shared_ptr<arrow::Array>> columns;
      for (const auto& field : selected) {
        auto column = batch->GetColumnByName(field->name());
        if (column == nullptr) {
          return CorruptError(Concat("column '", field->name(), "' is missing"));
        }
        columns.push_back(std::move(column));
      }
      rows += batch->num_rows();
      pieces.push_back(
          arrow::RecordBatch::Make(selected_schema, batch->num_rows(), std::move(columns)));
    }
  } catch (const parquet::ParquetStatusException& error) {
    if (IsFailureToRead(error.status())) return error.status();
    return CorruptError(Concat("row group ", index, ": ", error.what()));
  } catch (const std::exception& error) {
    return CorruptError(Concat("row group ", index, ": ", error.what()));
  }
  if (rows != expected_rows) {
    return CorruptError(Concat("row group ", index, " decodes to ", rows, " rows; its footer says ",
                               expected_rows));
  }
  return pieces;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> ExternalParquetFile::ReadRange(int64_t offset,
                                                                             int64_t length) const {
  if (offset < 0 || length < 0 || offset > size_bytes_ || length > size_bytes_ - offset) {
    return CorruptError(Concat("bytes [", offset, ", ", offset + length,
                               ") lie outside the file of ", size_bytes_, " bytes"));
  }
  auto read = input_->ReadAt(offset, length);
  if (!read.ok()) return WithContext(read.status(), Concat("reading external file ", location_));
  auto bytes = std::move(*read);
  if (bytes->size() != length) {
    return CorruptError(Concat("bytes [", offset, ", ", offset + length, ") cannot be read"));
  }
  return bytes;
}

namespace {

// `index` checked against the footer's `chunk`: every page inside the column chunk, each
// starting where the one before ends (writers write pages end to end: an offset pointing
// elsewhere is a lie), rows ascending from 0 within the row group's `group_rows`, no sum past
// int64. Pages are read by these numbers.
bool OffsetIndexFitsChunk(const parquet::OffsetIndex& index,
                          const parquet::ColumnChunkMetaData& chunk, int64_t group_rows,
                          int64_t file_bytes) {
  const int64_t chunk_start = ColumnChunkStart(chunk);
  int64_t chunk_end = 0;
  if (chunk_start < 4 || chunk.total_compressed_size() < 0 ||
      __builtin_add_overflow(chunk_start, chunk.total_compressed_size(), &chunk_end) ||
      chunk_end > file_bytes) {
    return false;
  }
  const auto& pages = index.page_locations();
  if (pages.empty()) return false;
  int64_t previous_end = chunk.data_page_offset();
  int64_t previous_row = -1;
  for (size_t p = 0; p < pages.size(); ++p) {
    const auto& page = pages[p];
    int64_t page_end = 0;
    const bool fits =
        (p == 0 ? page.offset >= previous_end : page.offset == previous_end) &&
        page.compressed_page_size > 0 &&
        !__builtin_add_overflow(page.offset, int64_t{page.compressed_page_size}, &page_end) &&
        page_end <= chunk_end;
    const bool rows =
        p == 0 ? page.first_row_index == 0
               : page.first_row_index > previous_row && page.first_row_index < group_rows;
    if (!fits || !rows) return false;
    previous_end = page_end;
    previous_row = page.first_row_index;
  }
  return true;
}

}  // namespace

int64_t ColumnChunkStart(const parquet::ColumnChunkMetaData& chunk) {
  return chunk.has_dictionary_page() && chunk.dictionary_page_offset() > 0
             ? std::min(chunk.dictionary_page_offset(), chunk.data_page_offset())
             : chunk.data_page_offset();
}

std::shared_ptr<parquet::OffsetIndex> ExternalParquetFile::OffsetIndex(int group, int leaf) const {
  {
    std::lock_guard<std::mutex> lock(offset_indexes_->mutex);
    auto found = offset_indexes_->groups.find(group);
    if (found != offset_indexes_->groups.end()) return found->second[static_cast<size_t>(leaf)];
  }
  // Read without the lock (another reader of the file may look up other row groups meanwhile);
  // two threads reading the same row group's both keep the first.
  std::vector<std::shared_ptr<parquet::OffsetIndex>> indexes;
  bool storage_failed = false;
  try {
    const auto row_group = metadata_->RowGroup(group);
    indexes.resize(static_cast<size_t>(metadata_->num_columns()));
    auto reader =
        parquet::ParquetFileReader::Open(input_, parquet::default_reader_properties(), metadata_);
    auto page_indexes = reader->GetPageIndexReader();
    auto group_indexes = page_indexes == nullptr ? nullptr : page_indexes->RowGroup(group);
    for (int column = 0; group_indexes != nullptr && column < metadata_->num_columns(); ++column) {
      std::shared_ptr<parquet::OffsetIndex> index;
      try {
        index = group_indexes->GetOffsetIndex(column);
      } catch (const parquet::ParquetStatusException& error) {
        storage_failed = storage_failed || IsFailureToRead(error.status());
        continue;
      } catch (const std::exception&) {
        continue;  // unreadable: as if absent, the row group is decoded whole
      }
      // One that contradicts the footer is as if absent too: the row group's own decoding is
      // the judge of its data.
      if (index != nullptr && OffsetIndexFitsChunk(*index, *row_group->ColumnChunk(column),
                                                   row_group->num_rows(), size_bytes_)) {
        indexes[static_cast<size_t>(column)] = std::move(index);
      }
    }
  } catch (const parquet::ParquetStatusException& error) {
    storage_failed = storage_failed || IsFailureToRead(error.status());
    indexes.assign(static_cast<size_t>(metadata_->num_columns()), nullptr);
  } catch (const std::exception&) {
    // The page index as a whole cannot be read: none, the row groups are decoded whole.
    indexes.assign(static_cast<size_t>(metadata_->num_columns()), nullptr);
  }
  // A throttled or unreachable store says nothing about the file: not kept, asked again later.
  if (storage_failed) return indexes[static_cast<size_t>(leaf)];
  std::lock_guard<std::mutex> lock(offset_indexes_->mutex);
  auto found = offset_indexes_->groups.emplace(group, std::move(indexes)).first;
  return found->second[static_cast<size_t>(leaf)];
}

}  // namespace tessera::dataset
