#include "tessera/io/cached_object_file.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "tessera/io/s3_errors.h"
#include "tessera/status.h"
#include "tessera/util/environment.h"

namespace tessera::io {

CachedObjectFile::CachedObjectFile(std::shared_ptr<arrow::io::RandomAccessFile> inner,
                                   std::string cache_key, std::string shown, int64_t size,
                                   ObjectCache* cache, int64_t chunk_bytes, ErrorTyping typed)
    : inner_(std::move(inner)),
      cache_key_(std::move(cache_key)),
      shown_(std::move(shown)),
      size_(size),
      cache_(cache),
      chunk_bytes_(chunk_bytes),
      typed_(std::move(typed)) {}

int64_t CachedObjectFile::ConfiguredChunkBytes() {
  // Read once: chunk i of an object must mean the same bytes for the whole process.
  static const int64_t chunk_bytes =
      util::IntegerFromEnvironment("TESSERA_S3_READ_CHUNK_BYTES", 256 * 1024, 4096);
  return chunk_bytes;
}

arrow::Status CachedObjectFile::Shorter(int64_t begin, int64_t wanted, int64_t got) const {
  return Corrupt("file ", shown_, " is shorter than its recorded ", size_, " bytes (a read of ",
                 wanted, " bytes at ", begin, " returned ", got,
                 "); restore it or check out an older version");
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::Fetch(int64_t begin,
                                                                      int64_t length) const {
  auto read = inner_->ReadAt(begin, length);
  if (!read.ok()) {
    // A range starting past the object's end: the object is shorter than recorded.
    if (AwsHttpStatus(read.status().message()) == 416 ||
        AwsErrorName(read.status().message()) == "INVALID_RANGE") {
      return Shorter(begin, length, 0);
    }
    return typed_(read.status());
  }
  if ((*read)->size() != length) return Shorter(begin, length, (*read)->size());
  return read;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::FetchRun(int64_t first,
                                                                         int64_t end) {
  const int64_t begin = first * chunk_bytes_;
  ARROW_ASSIGN_OR_RAISE(auto fetched, Fetch(begin, std::min(size_, end * chunk_bytes_) - begin));
  if (end - first == 1) {
    cache_->Put(cache_key_, first, fetched);
    return fetched;
  }
  // Each chunk of a longer run is cached as a copy of its own, so that a chunk kept in the
  // cache never holds the whole run's memory alive.
  for (int64_t i = first; i < end; ++i) {
    const int64_t offset = (i - first) * chunk_bytes_;
    const int64_t length = std::min(chunk_bytes_, fetched->size() - offset);
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> piece, arrow::AllocateBuffer(length));
    std::memcpy(piece->mutable_data(), fetched->data() + offset, static_cast<size_t>(length));
    cache_->Put(cache_key_, i, std::move(piece));
  }
  return fetched;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::ReadAt(int64_t position,
                                                                       int64_t nbytes) {
  if (position < 0 || nbytes < 0) return arrow::Status::Invalid("negative read of ", shown_);
  nbytes = std::max<int64_t>(0, std::min(nbytes, size_ - position));
  if (nbytes == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  if (!cache_->enabled()) return Fetch(position, nbytes);
  const int64_t first = position / chunk_bytes_;
  const int64_t last = (position + nbytes - 1) / chunk_bytes_;
  if (first == last) {
    ARROW_ASSIGN_OR_RAISE(Piece piece, Obtain(first, last));
    const int64_t from = position - first * chunk_bytes_;
    if (piece.bytes->size() < from + nbytes) {
      return Shorter(position, nbytes, piece.bytes->size() - from);
    }
    // A slice: it keeps the chunk (at most one chunk, as FetchRun caches copies) alive.
    return arrow::SliceBuffer(piece.bytes, from, nbytes);
  }
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::AllocateBuffer(nbytes));
  for (int64_t i = first; i <= last;) {
    // A run is copied from directly: a read larger than the cache must not depend on its own
    // chunks staying cached.
    ARROW_ASSIGN_OR_RAISE(Piece piece, Obtain(i, last));
    const int64_t start = i * chunk_bytes_;
    const int64_t expected = std::min(piece.end * chunk_bytes_, size_) - start;
    if (piece.bytes->size() < expected) return Shorter(start, expected, piece.bytes->size());
    const int64_t from = std::max(position, start);
    const int64_t to = std::min(position + nbytes, start + expected);
    std::memcpy(out->mutable_data() + (from - position), piece.bytes->data() + (from - start),
                static_cast<size_t>(to - from));
    i = piece.end;
  }
  return std::shared_ptr<arrow::Buffer>(std::move(out));
}

arrow::Result<CachedObjectFile::Piece> CachedObjectFile::Obtain(int64_t i, int64_t last) {
  if (auto chunk = cache_->Get(cache_key_, i)) return Piece{std::move(chunk), i + 1};
  auto flight = std::make_shared<ObjectCache::Flight>(i);
  if (auto other = cache_->Claim(cache_key_, i, flight)) {
    // Another thread fetches the chunk: its result, failure included, is this read's too.
    auto [status, bytes] = other->Wait();
    ARROW_RETURN_NOT_OK(status);
    // The cached copy when there is one: a slice of the other thread's run would keep its whole
    // run alive outside the cache's budget.
    if (auto chunk = cache_->Get(cache_key_, i)) return Piece{std::move(chunk), i + 1};
    const int64_t offset = (i - other->first()) * chunk_bytes_;
    const int64_t length = std::min(chunk_bytes_, bytes->size() - offset);
    if (length <= 0) return Shorter(i * chunk_bytes_, chunk_bytes_, 0);
    return Piece{arrow::SliceBuffer(bytes, offset, length), i + 1};
  }
  // This thread's flight lands whatever happens (an exception included): a waiter must never
  // wait for a fetch nobody makes.
  struct Landing {
    ObjectCache* cache;
    const std::string& key;
    const std::shared_ptr<ObjectCache::Flight>& flight;
    std::vector<int64_t> chunks;
    bool landed = false;
    void Land(arrow::Status status, std::shared_ptr<arrow::Buffer> bytes) {
      landed = true;
      cache->Land(key, chunks, flight, std::move(status), std::move(bytes));
    }
    ~Landing() {
      if (!landed) {
        Land(Error(ErrorKind::kInternal, "the fetch of ", key, " was abandoned"), nullptr);
      }
    }
  } landing{cache_, cache_key_, flight, {i}};
  if (auto chunk = cache_->Get(cache_key_, i)) {  // cached between the look and the claim
    landing.Land(arrow::Status::OK(), chunk);
    return Piece{std::move(chunk), i + 1};
  }
  // The missing chunks after i that no other thread fetches join the run.
  int64_t end = i + 1;
  while (end <= last && cache_->Get(cache_key_, end) == nullptr) {
    landing.chunks.push_back(end);
    if (cache_->Claim(cache_key_, end, flight) != nullptr) {
      landing.chunks.pop_back();
      break;
    }
    ++end;
  }
  auto run = FetchRun(i, end);
  landing.Land(run.status(), run.ok() ? *run : nullptr);
  ARROW_RETURN_NOT_OK(run.status());
  return Piece{std::move(*run), end};
}

arrow::Result<int64_t> CachedObjectFile::ReadAt(int64_t position, int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadAt(position, nbytes));
  if (bytes->size() > 0) std::memcpy(out, bytes->data(), static_cast<size_t>(bytes->size()));
  return bytes->size();
}

arrow::Status CachedObjectFile::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  return inner_->Close();
}

bool CachedObjectFile::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

arrow::Result<int64_t> CachedObjectFile::Tell() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return position_;
}

arrow::Status CachedObjectFile::Seek(int64_t position) {
  std::lock_guard<std::mutex> lock(mutex_);
  position_ = position;
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::Read(int64_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadAt(position_, nbytes));
  position_ += bytes->size();
  return bytes;
}

arrow::Result<int64_t> CachedObjectFile::Read(int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, Read(nbytes));
  if (bytes->size() > 0) std::memcpy(out, bytes->data(), static_cast<size_t>(bytes->size()));
  return bytes->size();
}

}  // namespace tessera::io
