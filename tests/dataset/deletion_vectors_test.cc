// DeletionVectors: each fragment's deletion vector is loaded once and shared; unknown fragments
// are NotFound; concurrent requests agree; a vector that fails to load is not kept.
#include "tessera/dataset/deletion_vectors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/indexed_dataset.h"
#include "support/ipc_file_surgery.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/status.h"

namespace tessera::dataset::deletion_vectors_test {
namespace {

using testing::TempDirectory;

class DeletionVectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Fragments 0..3 of 500 rows; deletions in fragments 0 and 2.
    ASSERT_OK_AND_ASSIGN(data_, testing::CreateSimpleDataset(directory_.Child("ds"), 2000, 500));
    ASSERT_OK_AND_ASSIGN(data_, data_->Delete("id IN (1, 2, 1003) OR (id >= 1100 AND id < 1110)"));
    ASSERT_EQ(data_->manifest().fragments_size(), 4);
    manifest_ = std::make_shared<format::Manifest>(data_->manifest());
  }

  std::string PathOf(int position) const {
    return directory_.Child("ds") + "/" + manifest_->fragments(position).deletion().path();
  }

  TempDirectory directory_;
  std::shared_ptr<Dataset> data_;
  std::shared_ptr<const format::Manifest> manifest_;
};

TEST_F(DeletionVectorsTest, LoadsEachVectorOnceAndSharesIt) {
  DeletionVectors vectors(data_->storage(), manifest_);
  EXPECT_EQ(vectors.loaded(), 0u);
  ASSERT_OK_AND_ASSIGN(auto first, vectors.Get(manifest_->fragments(0).id()));
  EXPECT_EQ(*first, Roaring::bitmapOf(2, 1, 2));
  EXPECT_EQ(vectors.loaded(), 1u);
  // Loaded once: the file is not read again (removing it changes nothing), and the same vector
  // is returned by id and by manifest entry.
  std::filesystem::remove(PathOf(0));
  ASSERT_OK_AND_ASSIGN(auto again, vectors.Get(manifest_->fragments(0).id()));
  ASSERT_OK_AND_ASSIGN(auto by_entry, vectors.Get(manifest_->fragments(0)));
  EXPECT_EQ(again, first);
  EXPECT_EQ(by_entry, first);
  EXPECT_EQ(vectors.loaded(), 1u);

  ASSERT_OK_AND_ASSIGN(auto none, vectors.Get(manifest_->fragments(1).id()));
  EXPECT_TRUE(none->isEmpty());  // no deletion file
  ASSERT_OK_AND_ASSIGN(auto third, vectors.Get(manifest_->fragments(2).id()));
  Roaring expected = Roaring::bitmapOf(1, 3);
  expected.addRange(100, 110);
  EXPECT_EQ(*third, expected);
  EXPECT_EQ(vectors.loaded(), 3u);
}

TEST_F(DeletionVectorsTest, AFragmentNotInTheVersionIsNotFound) {
  DeletionVectors vectors(data_->storage(), manifest_);
  const uint32_t unknown = manifest_->next_fragment_id() + 5;
  auto missing = vectors.Get(unknown);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound) << missing.status().ToString();
  const std::string message = missing.status().message();
  EXPECT_NE(message.find("fragment " + std::to_string(unknown)), std::string::npos) << message;
  EXPECT_NE(message.find("version " + std::to_string(manifest_->version())), std::string::npos)
      << message;
  EXPECT_NE(message.find(directory_.Child("ds")), std::string::npos) << message;
  EXPECT_EQ(vectors.loaded(), 0u);
}

TEST_F(DeletionVectorsTest, ConcurrentRequestsGetOneVectorPerFragment) {
  constexpr int kThreads = 8;
  for (int round = 0; round < 5; ++round) {
    DeletionVectors vectors(data_->storage(), manifest_);
    std::vector<std::vector<std::shared_ptr<const Roaring>>> seen(kThreads);
    std::vector<arrow::Status> statuses(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int thread = 0; thread < kThreads; ++thread) {
      threads.emplace_back([&, thread] {
        start.arrive_and_wait();
        // Threads walk the fragments in different orders.
        for (int step = 0; step < manifest_->fragments_size(); ++step) {
          const int position = (step + thread) % manifest_->fragments_size();
          auto vector = vectors.Get(manifest_->fragments(position).id());
          if (!vector.ok()) {
            statuses[thread] = vector.status();
            return;
          }
          if (seen[thread].empty()) seen[thread].resize(manifest_->fragments_size());
          seen[thread][position] = *vector;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(vectors.loaded(), 4u);
    for (int thread = 0; thread < kThreads; ++thread) {
      ASSERT_OK(statuses[thread]);
      for (int position = 0; position < manifest_->fragments_size(); ++position) {
        // Every thread holds the one vector kept for the fragment.
        ASSERT_OK_AND_ASSIGN(auto kept, vectors.Get(manifest_->fragments(position).id()));
        EXPECT_EQ(seen[thread][position], kept) << "thread " << thread << " fragment " << position;
      }
    }
  }
}

TEST_F(DeletionVectorsTest, AVectorThatFailsToLoadIsNotKept) {
  const std::string path = PathOf(2);
  const std::string original = testing::ReadBytes(path);
  testing::WriteBytes(path, original.substr(0, original.size() / 2));
  DeletionVectors vectors(data_->storage(), manifest_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto damaged = vectors.Get(manifest_->fragments(2).id());
    ASSERT_FALSE(damaged.ok());
    EXPECT_EQ(KindOf(damaged.status()), ErrorKind::kCorrupt) << damaged.status().ToString();
  }
  EXPECT_EQ(vectors.loaded(), 0u);
  testing::WriteBytes(path, original);
  ASSERT_OK_AND_ASSIGN(auto repaired, vectors.Get(manifest_->fragments(2).id()));
  EXPECT_EQ(repaired->cardinality(), 11u);
  EXPECT_EQ(vectors.loaded(), 1u);
}

}  // namespace
}  // namespace tessera::dataset::deletion_vectors_test
