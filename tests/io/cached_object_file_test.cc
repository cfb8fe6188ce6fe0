// Reads of object storage through the process cache (io/cached_object_file.h,
// io/object_cache.h), over an in-memory file that counts the reads reaching it: every read
// returns the file's bytes; reads within a chunk cost one inner read, runs of missing chunks
// one read together, repeated reads none; a file shorter than promised is Corrupt; the cache
// stays within its capacity, least recently used out.
#include "tessera/io/cached_object_file.h"

#include <arrow/io/memory.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tessera/status.h"

namespace tessera::io::cached_object_file_test {
namespace {

// An in-memory file counting its positional reads.
class CountingFile : public arrow::io::RandomAccessFile {
 public:
  explicit CountingFile(std::shared_ptr<arrow::Buffer> bytes) : reader_(std::move(bytes)) {}
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    ++reads;
    if (delay.count() > 0) std::this_thread::sleep_for(delay);  // a store far away
    if (throws) throw std::runtime_error("inner read failed");
    return reader_.ReadAt(position, nbytes);
  }
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ++reads;
    return reader_.ReadAt(position, nbytes, out);
  }
  arrow::Status Close() override { return reader_.Close(); }
  bool closed() const override { return reader_.closed(); }
  arrow::Result<int64_t> Tell() const override { return reader_.Tell(); }
  arrow::Status Seek(int64_t position) override { return reader_.Seek(position); }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    return reader_.Read(nbytes, out);
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    return reader_.Read(nbytes);
  }
  arrow::Result<int64_t> GetSize() override { return reader_.GetSize(); }

  std::atomic<int> reads{0};
  std::chrono::milliseconds delay{0};
  std::atomic<bool> throws{false};

 private:
  arrow::io::BufferReader reader_;
};

std::shared_ptr<arrow::Buffer> Bytes(int64_t size) {
  std::string bytes(static_cast<size_t>(size), '\0');
  std::mt19937 random(3);
  for (auto& byte : bytes) byte = static_cast<char>(random());
  return arrow::Buffer::FromString(std::move(bytes));
}

CachedObjectFile::ErrorTyping Unchanged() {
  return [](const arrow::Status& status) { return status; };
}

TEST(CachedObjectFile, EveryReadReturnsTheFilesBytes) {
  const auto bytes = Bytes(100000);
  auto inner = std::make_shared<CountingFile>(bytes);
  ObjectCache cache(1 << 20);
  CachedObjectFile file(inner, "store/b/f", "s3://b/f", bytes->size(), &cache, 4096, Unchanged());
  std::mt19937 random(5);
  for (int i = 0; i < 500; ++i) {
    const int64_t position = random() % bytes->size();
    const int64_t length = random() % 20000;
    auto read = file.ReadAt(position, length);
    ASSERT_TRUE(read.ok()) << read.status();
    const int64_t expected = std::min(length, bytes->size() - position);
    ASSERT_EQ((*read)->size(), expected);
    ASSERT_EQ(std::memcmp((*read)->data(), bytes->data() + position, expected), 0)
        << position << "+" << length;
  }
  EXPECT_LE(inner->reads.load(), 100000 / 4096 + 1) << "no chunk is read twice";
  ASSERT_TRUE(file.Seek(10).ok());
  auto sequential = file.Read(5);
  ASSERT_TRUE(sequential.ok());
  EXPECT_EQ(std::memcmp((*sequential)->data(), bytes->data() + 10, 5), 0);
  EXPECT_EQ(*file.Tell(), 15);
}

TEST(CachedObjectFile, CoalescesMissingChunksAndServesRepeatsFromTheCache) {
  const auto bytes = Bytes(64 * 1024);
  auto inner = std::make_shared<CountingFile>(bytes);
  ObjectCache cache(1 << 20);
  CachedObjectFile file(inner, "store/b/g", "s3://b/g", bytes->size(), &cache, 4096, Unchanged());
  ASSERT_TRUE(file.ReadAt(10, 20).ok());  // chunk 0
  EXPECT_EQ(inner->reads.load(), 1);
  ASSERT_TRUE(file.ReadAt(100, 50).ok());  // chunk 0 again: cached
  EXPECT_EQ(inner->reads.load(), 1);
  ASSERT_TRUE(file.ReadAt(4096 * 2, 4096 * 5).ok());  // chunks 2..6 (or 7): one read
  EXPECT_EQ(inner->reads.load(), 2);
  ASSERT_TRUE(file.ReadAt(0, 4096 * 10).ok());  // 1 and 7..9 missing: two runs
  EXPECT_EQ(inner->reads.load(), 4);
  // Another file object of the same object shares the cache.
  CachedObjectFile again(inner, "store/b/g", "s3://b/g", bytes->size(), &cache, 4096, Unchanged());
  ASSERT_TRUE(again.ReadAt(0, 4096 * 10).ok());
  EXPECT_EQ(inner->reads.load(), 4);
}

TEST(CachedObjectFile, AFileShorterThanPromisedIsCorrupt) {
  const auto bytes = Bytes(5000);
  ObjectCache cache(1 << 20);
  CachedObjectFile file(std::make_shared<CountingFile>(bytes), "store/b/h", "s3://b/h", 9000,
                        &cache, 4096, Unchanged());
  auto read = file.ReadAt(4096, 100);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(KindOf(read.status()), ErrorKind::kCorrupt);
  EXPECT_NE(read.status().message().find("s3://b/h"), std::string::npos) << read.status();
}

TEST(CachedObjectFile, WithTheCacheOffEveryReadGoesToTheFile) {
  const auto bytes = Bytes(10000);
  auto inner = std::make_shared<CountingFile>(bytes);
  ObjectCache off(0);
  CachedObjectFile file(inner, "store/b/i", "s3://b/i", bytes->size(), &off, 4096, Unchanged());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(file.ReadAt(0, 10).ok());
  EXPECT_EQ(inner->reads.load(), 3);
  EXPECT_FALSE(off.SizeOf("store/b/i").has_value());
}

TEST(CachedObjectFile, ConcurrentReadsAgree) {
  const auto bytes = Bytes(200000);
  auto inner = std::make_shared<CountingFile>(bytes);
  ObjectCache cache(64 * 1024);  // smaller than the file: evictions while reading
  CachedObjectFile file(inner, "store/b/j", "s3://b/j", bytes->size(), &cache, 8192, Unchanged());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int i = 0; i < 300; ++i) {
        const int64_t position = random() % bytes->size();
        auto read = file.ReadAt(position, 3000);
        if (!read.ok() ||
            std::memcmp((*read)->data(), bytes->data() + position, (*read)->size()) != 0) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.cached_bytes(), 64 * 1024);
}

TEST(CachedObjectFile, ThreadsMissingTheSameChunksFetchEachOnce) {
  const auto bytes = Bytes(64 * 1024);
  auto inner = std::make_shared<CountingFile>(bytes);
  inner->delay = std::chrono::milliseconds(50);  // every thread misses before any fetch ends
  ObjectCache cache(1 << 20);
  CachedObjectFile file(inner, "store/b/k", "s3://b/k", bytes->size(), &cache, 8192, Unchanged());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    // Overlapping reads: chunk 1 alone, chunks 1-3, chunks 2-5, ... all at once.
    threads.emplace_back([&, t] {
      const int64_t position = 8192 + (t % 4) * 4096;
      auto read = file.ReadAt(position, 8192 * (1 + t % 3));
      if (!read.ok() ||
          std::memcmp((*read)->data(), bytes->data() + position, (*read)->size()) != 0) {
        ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  // Chunks 1 to 4 are wanted; each is fetched by one thread (in at most one request each).
  EXPECT_LE(inner->reads.load(), 4);
  const int before = inner->reads.load();
  ASSERT_TRUE(file.ReadAt(8192, 4 * 8192).ok());
  EXPECT_EQ(inner->reads.load(), before) << "all cached";
}

TEST(CachedObjectFile, AFailedFetchIsNotWaitedForForever) {
  const auto bytes = Bytes(16 * 1024);
  auto inner = std::make_shared<CountingFile>(bytes);
  ObjectCache cache(1 << 20);
  // Promised longer than it is: the fetch of chunk 2 fails, and its waiters get its failure.
  CachedObjectFile file(inner, "store/b/m", "s3://b/m", 3 * 8192, &cache, 8192, Unchanged());
  std::vector<std::thread> threads;
  std::atomic<int> corrupt{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto read = file.ReadAt(2 * 8192, 100);
      if (!read.ok() && KindOf(read.status()) == ErrorKind::kCorrupt) ++corrupt;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(corrupt.load(), 4);
}

TEST(CachedObjectFile, AFetchThatThrowsStillWakesItsWaiters) {
  const auto bytes = Bytes(16 * 1024);
  auto inner = std::make_shared<CountingFile>(bytes);
  inner->delay = std::chrono::milliseconds(50);
  inner->throws = true;
  ObjectCache cache(1 << 20);
  CachedObjectFile file(inner, "store/b/n", "s3://b/n", bytes->size(), &cache, 8192, Unchanged());
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      try {
        auto read = file.ReadAt(100, 100);
        if (!read.ok()) ++finished;
      } catch (const std::runtime_error&) {
        ++finished;  // the fetching thread's exception is its own
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(finished.load(), 4) << "no thread waits for the abandoned fetch forever";
  inner->throws = false;
  inner->delay = std::chrono::milliseconds(0);
  auto again = file.ReadAt(100, 100);
  ASSERT_TRUE(again.ok()) << again.status();
}

TEST(ObjectCache, EvictsTheLeastRecentlyUsedBeyondItsCapacity) {
  ObjectCache cache(3000);
  cache.Put("o", 0, Bytes(1000));
  cache.Put("o", 1, Bytes(1000));
  cache.Put("o", 2, Bytes(1000));
  ASSERT_NE(cache.Get("o", 0), nullptr);  // 0 is now the most recent
  cache.Put("o", 3, Bytes(1000));         // evicts 1
  EXPECT_EQ(cache.Get("o", 1), nullptr);
  EXPECT_NE(cache.Get("o", 0), nullptr);
  EXPECT_NE(cache.Get("o", 3), nullptr);
  EXPECT_EQ(cache.cached_bytes(), 3000);
  cache.Put("o", 9, Bytes(5000));  // larger than the cache: not kept
  EXPECT_EQ(cache.Get("o", 9), nullptr);
  cache.SetSize("o", 42);
  EXPECT_EQ(cache.SizeOf("o"), 42);
}

}  // namespace
}  // namespace tessera::io::cached_object_file_test
