// Runs the built `tessera` executable on hostile segment metadata (docs/indexes.md "What commit
// checks"): segment JSON whose uuid would lead outside the dataset, whose model fingerprint or
// family lies, that belongs to another dataset or whose fragment bitmap is empty, and a
// manifest naming a segment outside the dataset. Each fails with one error line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_fixture.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/manifest_store.h"

namespace tessera::testing::cli_segment_metadata_test {
namespace {

namespace fs = std::filesystem;

// `json` with the first value of `key` (a string) replaced by `value`.
std::string WithField(const std::string& json, const std::string& key, const std::string& value) {
  const std::string opening = "\"" + key + "\":\"";
  const size_t begin = json.find(opening);
  EXPECT_NE(begin, std::string::npos) << key << " in " << json;
  if (begin == std::string::npos) return json;
  const size_t start = begin + opening.size();
  const size_t end = json.find('"', start);
  return json.substr(0, start) + value + json.substr(end);
}

std::string FieldOf(const std::string& json, const std::string& key) {
  const std::string opening = "\"" + key + "\":\"";
  const size_t start = json.find(opening) + opening.size();
  return json.substr(start, json.find('"', start) - start);
}

// The fragment bitmap of a segment's JSON, decoded from base64.
std::string FragmentBitmapOf(const std::string& json) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : FieldOf(json, "fragment_bitmap")) {
    const size_t value = kAlphabet.find(c);
    if (value == std::string::npos) break;  // '=' padding
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return bytes;
}

class CliSegmentMetadataTest : public CliFixture {
 protected:
  void SetUp() override {
    ds_ = Path("ds");
    RunOk({"gen", "--dataset", ds_, "--rows", "600", "--dim", "4", "--fragment-rows", "200",
           "--seed", "1"});
  }
  // Runs a command that must fail with `kind` and print exactly one line, the error, and
  // nothing on stdout; returns the error.
  std::string RunFailsWithOneLine(const std::vector<std::string>& args, const std::string& kind) {
    CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 1) << CommandLine(args) << "\nstderr: " << result.err;
    ExpectSingleErrorLine(result, kind);
    EXPECT_EQ(result.out, "") << CommandLine(args);
    return result.err;
  }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary | std::ios::trunc) << text;
    return Path(name);
  }

  // build-segment's JSON of a BTREE segment on `price` over fragment 0.
  std::string BuildPriceSegment(const std::string& dataset) {
    return RunOk({"index", "build-segment", dataset, "--name", "p", "--column", "price", "--type",
                  "BTREE", "--fragments", "0"});
  }

  std::vector<std::string> CommitPrice(const std::string& dataset, const std::string& file) {
    return {"index", "commit-segments", dataset, "--name",     "p", "--type",
            "BTREE", "--column",        "price", "--segments", file};
  }

  size_t SegmentDirectories() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(fs::path(ds_) / "_indices"),
                                             fs::directory_iterator()));
  }

  std::string ds_;
};

TEST_F(CliSegmentMetadataTest, CommitAndMergeRejectNonCanonicalSegmentUuids) {
  const std::string json = BuildPriceSegment(ds_);
  const std::string uuid = FieldOf(json, "uuid");
  // A complete segment where "../../victim" leads from _indices/.
  fs::copy(fs::path(ds_) / "_indices" / uuid, Path("victim"));
  std::string slashed = uuid;
  slashed[8] = '/';
  for (const std::string& hostile :
       {std::string("../../victim"), std::string("../../../victim"), std::string("."),
        std::string(".."), std::string(""), std::string("ABCDEF01-2345-4678-9ABC-DEF012345678"),
        uuid + "0", slashed}) {
    const std::string file = Write("hostile.json", WithField(json, "uuid", hostile));
    const std::string error = RunFailsWithOneLine(CommitPrice(ds_, file), "InvalidArgument");
    EXPECT_TRUE(Contains(error, "is not a canonical UUID")) << error;
    EXPECT_TRUE(Contains(error, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")) << error;
    RunFailsWithOneLine({"index", "merge-segments", ds_, "--segments", file}, "InvalidArgument");
  }
  EXPECT_EQ(Lines(RunOk({"versions", ds_, "--format", "csv"})).size(), 2u);
  EXPECT_EQ(SegmentDirectories(), 1u);
}

TEST_F(CliSegmentMetadataTest, OptimizeNeverMergesASegmentOutsideTheDataset) {
  RunOk(CommitPrice(ds_, Write("committed.json", BuildPriceSegment(ds_))));
  // A segment over fragment 1, moved out of the dataset to where "../../victim" leads.
  const std::string other = RunOk({"index", "build-segment", ds_, "--name", "p", "--column",
                                   "price", "--type", "BTREE", "--fragments", "1"});
  fs::rename(fs::path(ds_) / "_indices" / FieldOf(other, "uuid"), Path("victim"));
  auto dataset = tessera::dataset::Dataset::Open(ds_);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  const auto& manifest = (*dataset)->manifest();
  // A hand-made next version whose index also lists that segment, as "../../victim".
  tessera::format::Manifest hostile = manifest;
  auto* outside = hostile.mutable_indexes(0)->add_segments();
  *outside = manifest.indexes(0).segments(0);
  outside->set_uuid("../../victim");
  outside->set_fragment_bitmap(FragmentBitmapOf(other));
  hostile.set_version(manifest.version() + 1);
  auto published = tessera::dataset::TryPublishManifest(*(*dataset)->storage(), hostile);
  ASSERT_TRUE(published.ok() && *published);

  const std::string error =
      RunFailsWithOneLine({"index", "optimize", ds_, "--merge", "1"}, "Corrupt");
  EXPECT_TRUE(Contains(error, "names segment '../../victim'")) << error;
  EXPECT_EQ(SegmentDirectories(), 1u);
}

TEST_F(CliSegmentMetadataTest, CommitChecksFingerprintFamilyAndDataset) {
  const std::string json =
      RunOk({"index", "build-segment", ds_, "--name", "v", "--column", "vector", "--type",
             "IVF_FLAT", "--param", "num_partitions=2", "--fragments", "1"});
  const std::string fingerprint = FieldOf(json, "model_fingerprint");
  auto commit = [&](const std::string& type, const std::string& file) {
    return std::vector<std::string>{"index", "commit-segments", ds_,      "--name",
                                    "v",     "--column",        "vector", "--type",
                                    type,    "--segments",      file};
  };
  const std::string lied = RunFailsWithOneLine(
      commit("IVF_FLAT",
             Write("fingerprint.json", WithField(json, "model_fingerprint", "0000000000000000"))),
      "InvalidArgument");
  EXPECT_TRUE(Contains(lied, "records model fingerprint '0000000000000000'")) << lied;
  EXPECT_TRUE(Contains(lied, "has fingerprint '" + fingerprint + "'")) << lied;
  const std::string family = RunFailsWithOneLine(
      commit("IVF_SQ", Write("family.json", WithField(json, "family", "IVF_SQ"))),
      "InvalidArgument");
  EXPECT_TRUE(Contains(family, "is recorded as IVF_SQ but its model")) << family;
  EXPECT_TRUE(Contains(family, "is an IVF_FLAT model")) << family;

  // The same data generated again is another dataset.
  const std::string other = Path("other");
  RunOk({"gen", "--dataset", other, "--rows", "600", "--dim", "4", "--fragment-rows", "200",
         "--seed", "1"});
  const std::string foreign = RunFailsWithOneLine(
      CommitPrice(other, Write("foreign.json", BuildPriceSegment(ds_))), "InvalidArgument");
  EXPECT_TRUE(Contains(foreign, "was built for dataset ")) << foreign;
  EXPECT_TRUE(Contains(foreign, "not for dataset " + other)) << foreign;
  EXPECT_EQ(Lines(RunOk({"versions", ds_, "--format", "csv"})).size(), 2u);
}

TEST_F(CliSegmentMetadataTest, EmptyFragmentBitmapPrintsOnlyTheError) {
  const std::string json = BuildPriceSegment(ds_);
  const std::string empty = RunFailsWithOneLine(
      CommitPrice(ds_, Write("empty.json", WithField(json, "fragment_bitmap", ""))),
      "InvalidArgument");
  EXPECT_TRUE(Contains(empty, "has an empty fragment bitmap")) << empty;
  const std::string garbled = RunFailsWithOneLine(
      CommitPrice(ds_, Write("garbled.json", WithField(json, "fragment_bitmap", "AAAA"))),
      "InvalidArgument");
  EXPECT_TRUE(Contains(garbled, "is not a valid roaring bitmap")) << garbled;
}

}  // namespace
}  // namespace tessera::testing::cli_segment_metadata_test
