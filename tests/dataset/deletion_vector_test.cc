// Damaged deletion files (dataset/deletion_vector.h) are Corrupt, naming the file and the
// fragment, for every read and for a delete that merges new deletions into them.
#include "tessera/dataset/deletion_vector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/io/framed_file.h"
#include "tessera/status.h"

namespace tessera::dataset::deletion_vector_test {
namespace {

using ::testing::HasSubstr;

class DamagedDeletionFile : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto created,
                         Dataset::Create(directory_.Child("ds"), testing::SimpleReader(0, 100)));
    ASSERT_OK_AND_ASSIGN(dataset_, created->Delete("id < 3"));
    ASSERT_TRUE(dataset_->manifest().fragments(0).has_deletion());
    path_ = dataset_->manifest().fragments(0).deletion().path();
  }

  // Replaces the deletion file with `payload`, framed, and the manifest's count with `count`.
  std::shared_ptr<Dataset> WithDeletionPayload(const std::string& payload, uint64_t count) {
    std::ofstream(directory_.Child("ds") + "/" + path_, std::ios::binary | std::ios::trunc)
        << io::Frame(payload);
    auto manifest = std::make_shared<format::Manifest>(dataset_->manifest());
    manifest->mutable_fragments(0)->mutable_deletion()->set_num_deleted(count);
    return Dataset::FromManifest(dataset_->storage(), manifest).ValueOrDie();
  }

  void ExpectCorruptEverywhere(const Dataset& damaged, std::string_view fragment) {
    const auto expect = [&](const arrow::Status& status, const char* what) {
      EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << what << ": " << status.ToString();
      EXPECT_THAT(status.message(), HasSubstr(path_)) << what;
      EXPECT_THAT(status.message(), HasSubstr(std::string(fragment))) << what;
    };
    expect(LoadDeletionVector(*damaged.storage(), damaged.manifest().fragments(0)).status(),
           "load");
    expect(damaged.ScanToTable({}).status(), "scan");
    expect(damaged.CountRows("id > 50").status(), "count");
    expect(damaged.Take({5}).status(), "take");
    expect(damaged.Delete("id = 10").status(), "delete");
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Dataset> dataset_;
  std::string path_;
};

// Found by tests/fuzz/deletion_fuzzer: a bitmap holding an empty run container passed
// Roaring::readSafe and the count check (0 == 0), and `delete` then crashed (SIGSEGV) merging
// new deletions into it.
TEST_F(DamagedDeletionFile, AnEmptyRunContainerIsCorrupt) {
  const std::string empty_run_container("\x3b\x30\x00\x00\x01\x00\x00\x00\x00\x00\x00", 11);
  ExpectCorruptEverywhere(*WithDeletionPayload(empty_run_container, 0), "fragment 0");
}

// An offset past the fragment's rows would make the metadata count disagree with every scan.
TEST_F(DamagedDeletionFile, AnOffsetPastTheFragmentIsCorrupt) {
  Roaring beyond;
  beyond.add(5);
  beyond.add(100);  // the fragment has rows 0..99
  std::string payload(beyond.getSizeInBytes(true), '\0');
  beyond.write(payload.data(), true);
  auto damaged = WithDeletionPayload(payload, 2);
  ExpectCorruptEverywhere(*damaged, "fragment 0");
  EXPECT_THAT(
      LoadDeletionVector(*damaged->storage(), damaged->manifest().fragments(0)).status().message(),
      HasSubstr("deletes row offset 100 of fragment 0, which has only 100 rows"));
}

TEST_F(DamagedDeletionFile, AnIntactFileStillLoads) {
  ASSERT_OK_AND_ASSIGN(auto deleted,
                       LoadDeletionVector(*dataset_->storage(), dataset_->manifest().fragments(0)));
  EXPECT_EQ(deleted->cardinality(), 3u);
  EXPECT_EQ(dataset_->CountRows("id >= 0").ValueOrDie(), 97u);
}

}  // namespace
}  // namespace tessera::dataset::deletion_vector_test
