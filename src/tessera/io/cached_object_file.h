// CachedObjectFile: a file on object storage read in aligned chunks through the process's
// ObjectCache (object_cache.h), so that the many small reads of a reader (a footer, the
// metadata of each record batch, a few pages) cost one ranged GET per chunk instead of one per
// read, and nothing the process has read is fetched again.
//
// A read needing chunks that are not cached fetches each run of consecutive missing chunks
// with one ranged read: reads closer than a chunk are coalesced, and a large read is one
// request. A chunk another thread is fetching is waited for and taken from that fetch, not
// requested again. The chunk size is
// TESSERA_S3_READ_CHUNK_BYTES (default 256 KiB): larger merges more reads per request, at the price
// of bytes read and not used. A read served from one chunk is a zero-copy slice of it.
//
// The object's size is given (a size the caller knows, or one the cache holds) or asked once;
// a fetch that returns fewer bytes than the size promised is Corrupt, naming the file. Failures
// of the store are typed (PermissionDenied, NotFound, Unavailable) as Storage's are.
// Thread-safe like any arrow::io::RandomAccessFile: ReadAt from many threads at once.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "tessera/io/object_cache.h"

namespace tessera::io {

class CachedObjectFile : public arrow::io::RandomAccessFile {
 public:
  // Gives a failure of `inner` its kind (s3_errors.h).
  using ErrorTyping = std::function<arrow::Status(const arrow::Status&)>;

  // `inner` reads the object (Arrow's S3 file); `cache_key` names it in the cache; `shown`
  // names it in messages.
  CachedObjectFile(std::shared_ptr<arrow::io::RandomAccessFile> inner, std::string cache_key,
                   std::string shown, int64_t size, ObjectCache* cache, int64_t chunk_bytes,
                   ErrorTyping typed);

  // TESSERA_S3_READ_CHUNK_BYTES (at least 4 KiB), or 256 KiB; read once per process.
  static int64_t ConfiguredChunkBytes();

  arrow::Status Close() override;
  bool closed() const override;
  arrow::Result<int64_t> Tell() const override;
  arrow::Status Seek(int64_t position) override;
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override;
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override;
  arrow::Result<int64_t> GetSize() override { return size_; }

 private:
  // Bytes [begin, begin + length) from the object; Corrupt if it has fewer.
  arrow::Result<std::shared_ptr<arrow::Buffer>> Fetch(int64_t begin, int64_t length) const;
  // Bytes of chunks [i, end): chunk i from the cache, or from the fetch another thread is
  // making of it (its failure too), or fetched now with the chunks after it up to `last` that
  // are missing and that no other thread fetches (ObjectCache::Claim).
  struct Piece {
    std::shared_ptr<arrow::Buffer> bytes;
    int64_t end;
  };
  arrow::Result<Piece> Obtain(int64_t i, int64_t last);
  // Chunks [first, end) fetched in one read and cached; returns their bytes.
  arrow::Result<std::shared_ptr<arrow::Buffer>> FetchRun(int64_t first, int64_t end);
  arrow::Status Shorter(int64_t begin, int64_t wanted, int64_t got) const;

  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
  std::string cache_key_;
  std::string shown_;
  int64_t size_;
  ObjectCache* cache_;
  int64_t chunk_bytes_;
  ErrorTyping typed_;
  mutable std::mutex mutex_;  // guards position_ and closed_
  int64_t position_ = 0;
  bool closed_ = false;
};

}  // namespace tessera::io
