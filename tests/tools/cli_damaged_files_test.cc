// The CLI on damaged files (issue "Hardening", findings 1 and 6): where damaged string or list
// offsets used to crash scan, count, delete and index create with SIGSEGV, each now exits with
// exactly one line on stderr, `error: Corrupt: ...` naming the data file, and a manifest that
// does not decode prints no library noise before its error line.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_fixture.h"
#include "support/ipc_file_surgery.h"
#include "support/mixed_rows.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "tessera/dataset/dataset.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/format/paths.h"
#include "tessera/io/framed_file.h"

namespace tessera::cli_damaged_files_test {
namespace {

namespace fs = std::filesystem;

class CliDamagedFiles : public testing::CliFixture {
 protected:
  void SetUp() override {
    root_ = Path("items");
    ASSERT_OK_AND_ASSIGN(
        data_, dataset::Dataset::Create(root_, testing::ReaderOf(testing::MixedRows(0, 3000, 4))));
  }

  std::string root_;
  std::shared_ptr<dataset::Dataset> data_;
};

TEST_F(CliDamagedFiles, DamagedOffsetsAreOneCorruptLineForEveryCommand) {
  const std::string file = root_ + "/" + data_->manifest().fragments(0).files(0).path();
  const auto ranges =
      testing::BufferRanges(file, 1, [](const std::string& name, const arrow::ArrayData& data) {
        return (name == "text" && data.type->id() == arrow::Type::STRING) ||
               (name == "tags" && data.type->id() == arrow::Type::LIST);
      });
  ASSERT_FALSE(ranges.empty());
  std::string bytes = testing::ReadBytes(file);
  for (const auto& range : ranges) {
    const int32_t huge = 1 << 30;
    std::memcpy(bytes.data() + range.offset + 8, &huge, 4);
  }
  testing::WriteBytes(file, bytes);
  const std::string name = fs::path(file).filename().string();
  testing::ExpectSingleErrorLine(Run({"scan", root_}), "Corrupt", name);
  testing::ExpectSingleErrorLine(Run({"count", root_, "--where", "text LIKE '%a%'"}), "Corrupt",
                                 name);
  testing::ExpectSingleErrorLine(Run({"delete", root_, "--where", "text LIKE '%a%'"}), "Corrupt",
                                 name);
  testing::ExpectSingleErrorLine(
      Run({"index", "create", root_, "--name", "t", "--column", "text", "--type", "BTREE"}),
      "Corrupt", name);
  ASSERT_OK_AND_ASSIGN(auto latest, dataset::Dataset::Open(root_));
  EXPECT_EQ(latest->version(), 1u) << "nothing may commit on top of a damaged file";
}

TEST_F(CliDamagedFiles, AManifestThatDoesNotDecodePrintsOnlyItsError) {
  format::Manifest manifest = data_->manifest();
  manifest.set_version(2);
  manifest.set_operation(std::string("append\xff\xfe", 8));  // not UTF-8: proto3 refuses it
  const std::string path = root_ + "/" + format::ManifestPath(2);
  testing::WriteBytes(path, io::Frame(manifest.SerializeAsString()));
  testing::ExpectSingleErrorLine(Run({"scan", root_}), "Corrupt", format::ManifestPath(2));
}

}  // namespace
}  // namespace tessera::cli_damaged_files_test
