// Regression tests of issue "Hardening", findings 1 and 4: damaged variable-length data in a
// fragment crashed scan, count, delete and index builds or silently changed counts; damaged
// segment files (BTREE row addresses, IVF row addresses, PQ codes) silently changed answers.
// Every such read is now Corrupt naming the file, and a write that would build on damaged data
// commits nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/ipc_file_surgery.h"
#include "support/mixed_rows.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/query/nearest.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

namespace tessera::damaged_files_test {
namespace {

namespace fs = std::filesystem;

void ExpectCorruptNaming(const arrow::Status& status, const std::string& name) {
  ASSERT_FALSE(status.ok()) << "expected Corrupt naming " << name;
  EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  EXPECT_NE(status.message().find(name), std::string::npos) << status.ToString();
}

class DamagedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = directory_.Child("items");
    dataset::WriteOptions options;
    options.rows_per_batch = 256;
    ASSERT_OK_AND_ASSIGN(
        data_, dataset::Dataset::Create(root_, testing::ReaderOf(testing::MixedRows(0, 2000, 9)),
                                        options));
    data_file_ = root_ + "/" + data_->manifest().fragments(0).files(0).path();
  }

  // Overwrites int32 `value` into every `stride`-th offset of `column`'s offsets buffers.
  void DamageOffsets(const std::string& column, int32_t value, size_t stride) {
    auto ranges = testing::BufferRanges(
        data_file_, 1, [&](const std::string& name, const arrow::ArrayData& data) {
          return name == column &&
                 (data.type->id() == arrow::Type::STRING || data.type->id() == arrow::Type::LIST);
        });
    ASSERT_FALSE(ranges.empty());
    std::string bytes = testing::ReadBytes(data_file_);
    for (const auto& range : ranges) {
      for (size_t at = range.offset + 4 * stride; at + 4 <= range.offset + range.length;
           at += 4 * stride) {
        std::memcpy(bytes.data() + at, &value, 4);
      }
    }
    testing::WriteBytes(data_file_, bytes);
  }

  arrow::Status Latest() { return dataset::Dataset::Open(root_).status(); }

  testing::TempDirectory directory_;
  std::string root_;
  std::shared_ptr<dataset::Dataset> data_;
  std::string data_file_;
};

TEST_F(DamagedFiles, DamagedStringAndListOffsetsAreCorruptForScanCountDeleteAndIndexBuilds) {
  const std::string name = fs::path(data_file_).filename().string();
  for (const char* column : {"text", "tags", "category"}) {
    SCOPED_TRACE(column);
    const std::string original = testing::ReadBytes(data_file_);
    DamageOffsets(column, 1 << 30, 37);
    // Opened again: an opened dataset trusts the blocks it verified (reads of the previous
    // column, restored since, may have verified this column's blocks too).
    ASSERT_OK_AND_ASSIGN(data_, dataset::Dataset::Open(root_));
    dataset::ScanOptions scan;
    ExpectCorruptNaming(data_->ScanToTable(scan).status(), name);
    ExpectCorruptNaming(data_->CountRows("text LIKE '%a%'").status(), name);
    ExpectCorruptNaming(data_->CountRows("array_has_any(tags, ['t1'])").status(), name);
    ExpectCorruptNaming(data_->CountRows("category = 'c3'").status(), name);
    auto deleted = data_->Delete("category = 'c3'");
    ExpectCorruptNaming(deleted.status(), name);
    index::IndexSpec spec{"text_idx", "text", "BTREE", {}};
    ExpectCorruptNaming(index::CreateIndex(*data_, spec).status(), name);
    // Nothing was committed on top of the damaged file.
    ASSERT_OK_AND_ASSIGN(auto latest, dataset::Dataset::Open(root_));
    EXPECT_EQ(latest->version(), 1u);
    testing::WriteBytes(data_file_, original);
  }
}

TEST_F(DamagedFiles, AnOffsetMovedWithinItsBufferDoesNotChangeACount) {
  // The finding: damaged `category` offsets changed a count by one, and delete committed it.
  ASSERT_OK_AND_ASSIGN(uint64_t before, data_->CountRows("category = 'c3'"));
  ASSERT_GT(before, 0u);
  DamageOffsets("category", 5, 101);
  ExpectCorruptNaming(data_->CountRows("category = 'c3'").status(),
                      fs::path(data_file_).filename().string());
  EXPECT_EQ(KindOf(data_->Delete("category = 'c3'").status()), ErrorKind::kCorrupt);
}

TEST_F(DamagedFiles, OffsetsDamagedWithMatchingChecksumsAreStillCorrupt) {
  // Even when the checksums were rewritten to match (damage by a program, not the disk), the
  // structural validation of every batch read catches offsets that point outside their data.
  DamageOffsets("tags", -7, 50);
  testing::RewriteChecksums(data_file_);
  ExpectCorruptNaming(data_->ScanToTable({}).status(), fs::path(data_file_).filename().string());
  ExpectCorruptNaming(data_->CountRows("array_has_any(tags, ['t1'])").status(),
                      fs::path(data_file_).filename().string());
}

TEST_F(DamagedFiles, AppendOfAMalformedBatchIsRejectedBeforeAnythingIsCommitted) {
  auto batch = testing::MixedRows(5000, 10, 3);
  // An offsets buffer pointing past its data, as a damaged input file would decode.
  auto text = batch->column(3)->data()->Copy();
  auto offsets = arrow::AllocateBuffer(text->buffers[1]->size()).ValueOrDie();
  std::memcpy(offsets->mutable_data(), text->buffers[1]->data(),
              static_cast<size_t>(text->buffers[1]->size()));
  reinterpret_cast<int32_t*>(offsets->mutable_data())[5] = 1 << 28;
  text->buffers[1] = std::move(offsets);
  auto columns = batch->columns();
  columns[3] = arrow::MakeArray(text);
  auto damaged = arrow::RecordBatch::Make(batch->schema(), batch->num_rows(), columns);
  auto appended = data_->Append(testing::ReaderOf(damaged));
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(KindOf(appended.status()), ErrorKind::kInvalidArgument) << appended.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, dataset::Dataset::Open(root_));
  EXPECT_EQ(latest->version(), 1u);
}

// The file of an index's first segment.
std::string SegmentFileOf(const dataset::Dataset& data, const std::string& root,
                          const std::string& index_name, const std::string& file) {
  for (const auto& definition : data.manifest().indexes()) {
    if (definition.name() == index_name) {
      return root + "/_indices/" + definition.segments(0).uuid() + "/" + file;
    }
  }
  return "";
}

// Sets every `stride`-th uint64 of the `_rowaddr` column of `path` to `address`.
void RewriteRowAddresses(const std::string& path, uint64_t address, size_t stride) {
  auto ranges = testing::BufferRanges(
      path, 1, [](const std::string& name, const arrow::ArrayData&) { return name == "_rowaddr"; });
  ASSERT_FALSE(ranges.empty());
  std::string bytes = testing::ReadBytes(path);
  for (const auto& range : ranges) {
    for (size_t at = range.offset; at + 8 <= range.offset + range.length; at += 8 * stride) {
      std::memcpy(bytes.data() + at, &address, 8);
    }
  }
  testing::WriteBytes(path, bytes);
}

TEST_F(DamagedFiles, BtreeRowAddressesOfAMissingFragmentAreCorruptNotDropped) {
  index::IndexSpec spec{"price_idx", "price", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(data_, index::CreateIndex(*data_, spec));
  const std::string pages = SegmentFileOf(*data_, root_, "price_idx", "pages.arrow");
  const std::string uuid = fs::path(pages).parent_path().filename().string();
  RewriteRowAddresses(pages, dataset::MakeRowAddress(77, 3), 9);
  // Without the checksum rewrite, the checksum layer reports it.
  dataset::ScanOptions options;
  options.filter = "price < 100";
  ExpectCorruptNaming(query::Scan(*data_, options).status(), "pages.arrow");
  // With checksums made to match, the planner's address check does.
  testing::RewriteChecksums(pages);
  ExpectCorruptNaming(query::Scan(*data_, options).status(), uuid);
  // An address beyond its fragment's rows is Corrupt too (it was NotFound from take).
  RewriteRowAddresses(pages, dataset::MakeRowAddress(data_->manifest().fragments(0).id(), 999999),
                      9);
  testing::RewriteChecksums(pages);
  ExpectCorruptNaming(query::Scan(*data_, options).status(), uuid);
}

TEST_F(DamagedFiles, IvfRowAddressesAndCodesAreVerified) {
  index::IndexSpec flat{"vec_flat", "vector", "IVF_FLAT", {{"num_partitions", "2"}}};
  ASSERT_OK_AND_ASSIGN(data_, index::CreateIndex(*data_, flat));
  const std::string partitions = SegmentFileOf(*data_, root_, "vec_flat", "partitions.arrow");
  const std::string uuid = fs::path(partitions).parent_path().filename().string();
  query::NearestOptions options;
  options.column = "vector";
  options.query.assign(testing::kMixedDim, 1.0f);
  options.nprobes = 2;
  ASSERT_OK(query::Nearest(*data_, options).status());
  RewriteRowAddresses(partitions,
                      dataset::MakeRowAddress(data_->manifest().fragments(0).id(), 5000), 3);
  // Blocks verified once stay verified for the opened dataset, and opened segments stay open in
  // the process (files never change in place but here): open both anew to see the damage.
  query::SegmentCache::Global().Clear();
  ASSERT_OK_AND_ASSIGN(data_, dataset::Dataset::Open(root_));
  ExpectCorruptNaming(query::Nearest(*data_, options).status(), "partitions.arrow");
  testing::RewriteChecksums(partitions);
  ExpectCorruptNaming(query::Nearest(*data_, options).status(), uuid);

  index::IndexSpec pq{"vec_pq",
                      "vector",
                      "IVF_PQ",
                      {{"num_partitions", "2"}, {"num_sub_vectors", "2"}, {"metric", "cosine"}}};
  ASSERT_OK_AND_ASSIGN(data_, index::CreateIndex(*data_, pq));
  const std::string codes = SegmentFileOf(*data_, root_, "vec_pq", "partitions.arrow");
  auto ranges =
      testing::BufferRanges(codes, 1, [](const std::string& name, const arrow::ArrayData& data) {
        return name == "code" && data.type->id() == arrow::Type::UINT8;
      });
  ASSERT_FALSE(ranges.empty());
  std::string bytes = testing::ReadBytes(codes);
  bytes[ranges[0].offset + 3] = static_cast<char>(bytes[ranges[0].offset + 3] ^ 0x5A);
  testing::WriteBytes(codes, bytes);
  options.metric = index::vector::Metric::kCosine;
  ExpectCorruptNaming(query::Nearest(*data_, options).status(), "partitions.arrow");
}

}  // namespace
}  // namespace tessera::damaged_files_test
