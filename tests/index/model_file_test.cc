// Model files of the distributed workflow (index/lifecycle.h): written all at once, read back
// equal, and checked against the column and parameters of the segments a worker builds with
// them; parameters a worker leaves out come from the model file, or from the segments when they
// are committed.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"

namespace tessera::index::model_file_test {
namespace {

using dataset::Dataset;
using testing::SimpleReader;
using testing::TempDirectory;

std::shared_ptr<Dataset> MakeDataset(const TempDirectory& directory) {
  dataset::WriteOptions options;
  options.max_rows_per_file = 50;
  auto created = Dataset::Create(directory.Child("ds"), SimpleReader(0, 200), options);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? *created : nullptr;
}

IndexSpec VectorIndex(Params params = {{"num_partitions", "2"}, {"max_iters", "5"}}) {
  return {"vec_idx", "vector", "IVF_FLAT", std::move(params)};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ModelFile, RoundTripsWithTheFieldAndNormalizedParameters) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));

  ASSERT_OK_AND_ASSIGN(Model read, ReadModelFile(path));
  EXPECT_EQ(read.family, model.family);
  EXPECT_EQ(read.fingerprint, model.fingerprint);
  EXPECT_EQ(read.bytes, model.bytes);
  ASSERT_OK_AND_ASSIGN(format::IndexModel record, ReadModelRecord(path));
  EXPECT_EQ(record.field_id(), dataset->field_ids()[3]);  // "vector"
  EXPECT_EQ(record.params().at("num_partitions"), "2");
  EXPECT_GT(record.params().size(), 2u) << "normalized: the defaults are recorded too";
}

TEST(ModelFile, EqualModelsEncodeToEqualBytes) {
  // Training is deterministic, and so is the encoding: its parameter map is written in key
  // order, not in the order of each map instance (which libprotobuf varies), so a model
  // trained twice, or in two processes, has the same bytes.
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model first, TrainModel(*dataset, VectorIndex()));
  ASSERT_OK_AND_ASSIGN(Model second, TrainModel(*dataset, VectorIndex()));
  for (int i = 0; i < 8; ++i) {
    ASSERT_OK_AND_ASSIGN(auto a, EncodeModel(first, *dataset, VectorIndex()));
    ASSERT_OK_AND_ASSIGN(auto b, EncodeModel(second, *dataset, VectorIndex()));
    ASSERT_EQ(a, b);
  }
  ASSERT_OK_AND_ASSIGN(auto bytes, EncodeModel(first, *dataset, VectorIndex()));
  ASSERT_OK_AND_ASSIGN(format::IndexModel record, DecodeModel(bytes, "test bytes"));
  EXPECT_EQ(record.bytes(), first.bytes);
  bytes[bytes.size() / 2] ^= 1;
  auto damaged = DecodeModel(bytes, "test bytes");
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(KindOf(damaged.status()), ErrorKind::kCorrupt);
  EXPECT_TRUE(Contains(damaged.status().message(), "test bytes")) << damaged.status().message();
}

TEST(ModelFile, ReplacesAnExistingFileLeavingNoTemporary) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory.path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "ds" || name == "model.bin") << name;
    ++entries;
  }
  EXPECT_EQ(entries, 2);
}

TEST(ModelFile, AnUnwritableFileIsAnIOErrorNamingIt) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("no/such/dir/model.bin");
  const arrow::Status written = WriteModelFile(path, model, *dataset, VectorIndex());
  EXPECT_EQ(KindOf(written), ErrorKind::kIOError);
  EXPECT_TRUE(Contains(written.message(), path)) << written.ToString();
}

TEST(ModelFile, AWorkerWithoutParametersTakesTheModels) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));

  IndexSpec worker = VectorIndex(/*params=*/{});
  ASSERT_OK_AND_ASSIGN(Model read, ReadModelFileFor(path, *dataset, &worker));
  EXPECT_EQ(read.fingerprint, model.fingerprint);
  EXPECT_EQ(worker.params.at("num_partitions"), "2");
  ASSERT_OK_AND_ASSIGN(format::SegmentMeta segment, BuildSegment(*dataset, worker, {}, &read));
  EXPECT_EQ(segment.model_fingerprint(), model.fingerprint);
}

TEST(ModelFile, AWorkerWithTheTrainingParametersIsAccepted) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));
  IndexSpec worker = VectorIndex();  // not normalized: Validate fills in the same defaults
  ASSERT_OK(ReadModelFileFor(path, *dataset, &worker).status());
}

TEST(ModelFile, OtherParametersOrAnotherColumnAreRejected) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*dataset, VectorIndex()));
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(WriteModelFile(path, model, *dataset, VectorIndex()));

  IndexSpec other_params = VectorIndex({{"num_partitions", "3"}});
  auto mismatch = ReadModelFileFor(path, *dataset, &other_params);
  EXPECT_EQ(KindOf(mismatch.status()), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(Contains(mismatch.status().message(), "was trained with"))
      << mismatch.status().ToString();
  EXPECT_TRUE(Contains(mismatch.status().message(), path)) << mismatch.status().ToString();

  IndexSpec other_column = VectorIndex();
  other_column.column = "value";
  auto column = ReadModelFileFor(path, *dataset, &other_column);
  EXPECT_EQ(KindOf(column.status()), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(Contains(column.status().message(), "column 'value'")) << column.status().ToString();
}

TEST(ModelFile, AMissingFileIsNotFound) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  IndexSpec worker = VectorIndex();
  auto missing = ReadModelFileFor(directory.Child("absent.bin"), *dataset, &worker);
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound);
}

TEST(CommitSegments, WithoutParametersTakesThoseTheSegmentsWereBuiltWith) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_TRUE(dataset);
  ASSERT_OK_AND_ASSIGN(format::SegmentMeta segment,
                       BuildSegment(*dataset, VectorIndex(), {}, nullptr));
  ASSERT_OK_AND_ASSIGN(auto committed,
                       CommitSegments(*dataset, VectorIndex(/*params=*/{}), {segment}));
  ASSERT_OK_AND_ASSIGN(IndexSummary summary, DescribeIndex(*committed, "vec_idx"));
  EXPECT_EQ(summary.params.at("num_partitions"), "2");
  EXPECT_EQ(summary.num_segments, 1);

  // Given parameters still have to match the segments'.
  ASSERT_OK_AND_ASSIGN(format::SegmentMeta another,
                       BuildSegment(*dataset, VectorIndex(), {}, nullptr));
  auto other = CommitSegments(*dataset, VectorIndex({{"num_partitions", "3"}}), {another});
  EXPECT_EQ(KindOf(other.status()), ErrorKind::kDefinitionMismatch) << other.status().ToString();
}

}  // namespace
}  // namespace tessera::index::model_file_test
