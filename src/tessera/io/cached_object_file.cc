#include "tessera/io/cached_object_file.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tessera/status.h"

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
  constexpr int64_t kDefault = 256 * 1024;
  const char* text = std::getenv("TESSERA_S3_READ_CHUNK_BYTES");
  if (text == nullptr || *text == '\0') return kDefault;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  // A malformed or tiny value keeps the default: a read setting must not make reads fail.
  return (*end == '\0' && value >= 4096) ? value : kDefault;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::Chunk(int64_t chunk, int64_t last) {
  if (auto cached = cache_->Get(cache_key_, chunk)) return cached;
  // The run of missing chunks from `chunk` on is fetched in one read.
  int64_t run_end = chunk + 1;
  while (run_end <= last && cache_->Get(cache_key_, run_end) == nullptr) ++run_end;
  const int64_t begin = chunk * chunk_bytes_;
  const int64_t end = std::min(size_, run_end * chunk_bytes_);
  auto read = inner_->ReadAt(begin, end - begin);
  if (!read.ok()) return typed_(read.status());
  const std::shared_ptr<arrow::Buffer>& fetched = *read;
  if (fetched->size() != end - begin) {
    return Corrupt("file ", shown_, " is shorter than its recorded ", size_, " bytes (a read of ",
                   end - begin, " bytes at ", begin, " returned ", fetched->size(),
                   "); restore it or check out an older version");
  }
  std::shared_ptr<arrow::Buffer> first;
  for (int64_t i = chunk; i < run_end; ++i) {
    const int64_t offset = (i - chunk) * chunk_bytes_;
    auto piece =
        arrow::SliceBuffer(fetched, offset, std::min(chunk_bytes_, fetched->size() - offset));
    if (i == chunk) first = piece;
    cache_->Put(cache_key_, i, std::move(piece));
  }
  return first;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> CachedObjectFile::ReadAt(int64_t position,
                                                                       int64_t nbytes) {
  if (position < 0 || nbytes < 0) return arrow::Status::Invalid("negative read of ", shown_);
  nbytes = std::max<int64_t>(0, std::min(nbytes, size_ - position));
  if (nbytes == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  if (!cache_->enabled()) {
    auto read = inner_->ReadAt(position, nbytes);
    if (!read.ok()) return typed_(read.status());
    return read;
  }
  const int64_t first = position / chunk_bytes_;
  const int64_t last = (position + nbytes - 1) / chunk_bytes_;
  if (first == last) {
    ARROW_ASSIGN_OR_RAISE(auto chunk, Chunk(first, last));
    return arrow::SliceBuffer(chunk, position - first * chunk_bytes_, nbytes);
  }
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::AllocateBuffer(nbytes));
  int64_t written = 0;
  for (int64_t i = first; i <= last; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto chunk, Chunk(i, last));
    const int64_t from = i == first ? position - first * chunk_bytes_ : 0;
    const int64_t take = std::min(chunk->size() - from, nbytes - written);
    std::memcpy(out->mutable_data() + written, chunk->data() + from, static_cast<size_t>(take));
    written += take;
  }
  return std::shared_ptr<arrow::Buffer>(std::move(out));
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
