// Untrusted segment metadata (docs/indexes.md "What commit checks"): hostile uuids never become
// paths, manifests naming files outside their directories are Corrupt, model fingerprints and
// families are checked against the files, a segment of another dataset is refused, and damaged
// segments met while merging are Corrupt naming the segment (files a newer tessera wrote stay
// Unsupported).
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/format/paths.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"

namespace tessera::index::segment_metadata_test {
namespace {

namespace fs = std::filesystem;
using dataset::Dataset;
using testing::SimpleReader;
using testing::TempDirectory;

std::shared_ptr<Dataset> MakeDataset(const std::string& path, int64_t rows = 200) {
  dataset::WriteOptions options;
  options.max_rows_per_file = 50;
  auto created = Dataset::Create(path, SimpleReader(0, rows), options);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? *created : nullptr;
}

IndexSpec IdIndex() { return {"id_idx", "id", "BTREE", {}}; }
IndexSpec VectorIndex(std::string family = "IVF_FLAT") {
  return {"vec_idx", "vector", std::move(family), {{"num_partitions", "2"}, {"max_iters", "5"}}};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Names that must never become a segment directory: each would reach outside _indices/ or
// alias another segment's directory.
std::vector<std::string> HostileUuids(const std::string& real) {
  std::string slashed = real;
  slashed[3] = '/';
  return {"../../victim",
          "../../../victim",
          ".",
          "..",
          "",
          "ABCDEF01-2345-4678-9ABC-DEF012345678",
          real + "0",
          slashed,
          std::string("0000000\0-0000-4000-8000-000000000000", 36)};
}

// Publishes `manifest` as the next version of the dataset at `uri`, bypassing every operation:
// what a hand-made or damaged manifest looks like to readers.
void PublishNext(const Dataset& dataset, format::Manifest manifest) {
  manifest.set_version(dataset.version() + 1);
  ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*dataset.storage(), manifest));
  ASSERT_TRUE(published);
}

std::string SegmentDirectoryOf(const std::string& root, const format::SegmentMeta& segment) {
  return (fs::path(root) / SegmentPath(segment.uuid())).string();
}

TEST(SegmentMetadata, UuidRules) {
  const std::string uuid = io::NewUuid();
  EXPECT_TRUE(format::IsCanonicalUuid(uuid));
  EXPECT_EQ(format::UuidDefect(uuid), "");
  for (const auto& hostile : HostileUuids(uuid)) {
    EXPECT_FALSE(format::IsCanonicalUuid(hostile)) << hostile;
    EXPECT_NE(format::UuidDefect(hostile), "") << hostile;
  }
  // Messages never carry a hostile name raw.
  const auto status = format::CheckUuid("ab\ncd\x1b[2J", "segment uuid");
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_FALSE(Contains(status.message(), "\n")) << status.message();
  EXPECT_FALSE(Contains(status.message(), "\x1b")) << status.message();
  EXPECT_TRUE(Contains(status.message(), format::kUuidForm.data())) << status.message();
}

TEST(SegmentMetadata, CommitRejectsNonCanonicalUuidsAndReadsNothingOutside) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory.Child("ds"));
  ASSERT_NE(dataset, nullptr);
  ASSERT_OK_AND_ASSIGN(auto segment, BuildSegment(*dataset, IdIndex(), {0}, nullptr));
  // A complete segment outside the dataset, where "../../victim" points from _indices/.
  fs::copy(SegmentDirectoryOf(directory.Child("ds"), segment), directory.Child("victim"));
  for (const auto& uuid : HostileUuids(segment.uuid())) {
    format::SegmentMeta hostile = segment;
    hostile.set_uuid(uuid);
    auto committed = CommitSegments(*dataset, IdIndex(), {hostile});
    ASSERT_FALSE(committed.ok()) << "uuid '" << uuid << "' was committed";
    EXPECT_EQ(KindOf(committed.status()), ErrorKind::kInvalidArgument) << committed.status();
    EXPECT_TRUE(Contains(committed.status().message(), "not a canonical UUID"))
        << committed.status();

    auto merged = MergeSegments(*dataset, {hostile});
    ASSERT_FALSE(merged.ok()) << "uuid '" << uuid << "' was merged";
    EXPECT_EQ(KindOf(merged.status()), ErrorKind::kInvalidArgument) << merged.status();

    auto json = SegmentsFromJson(SegmentToJson(hostile));
    ASSERT_FALSE(json.ok()) << "uuid '" << uuid << "' was read from JSON";
    EXPECT_EQ(KindOf(json.status()), ErrorKind::kInvalidArgument);
  }
  // Nothing was committed and no merge output was started.
  ASSERT_OK_AND_ASSIGN(auto latest, dataset->Latest());
  EXPECT_EQ(latest->version(), dataset->version());
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(directory.Child("ds")) / "_indices"),
                          fs::directory_iterator()),
            1);
  // The real segment still commits.
  ASSERT_OK(CommitSegments(*dataset, IdIndex(), {segment}).status());
}

TEST(SegmentMetadata, ManifestNamingASegmentOutsideIsCorruptAndOptimizeNeverMergesIt) {
  TempDirectory directory;
  const std::string root = directory.Child("ds");
  auto dataset = MakeDataset(root);
  ASSERT_NE(dataset, nullptr);
  ASSERT_OK_AND_ASSIGN(auto indexed, CreateIndex(*dataset, IdIndex()));
  const format::SegmentMeta& segment = indexed->manifest().indexes(0).segments(0);
  fs::copy(SegmentDirectoryOf(root, segment), directory.Child("victim"));

  // A second segment, at "../../victim", so that a merge to one segment would read it.
  format::Manifest hostile = indexed->manifest();
  format::SegmentMeta* outside = hostile.mutable_indexes(0)->add_segments();
  *outside = segment;
  outside->set_uuid("../../victim");
  PublishNext(*indexed, hostile);

  auto opened = Dataset::Open(root);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status();
  EXPECT_TRUE(Contains(opened.status().message(), format::ManifestPath(indexed->version() + 1)))
      << opened.status();
  EXPECT_TRUE(Contains(opened.status().message(), "index 'id_idx' names segment '../../victim'"))
      << opened.status();
  // So no optimize can start from it; the version before stays readable.
  ASSERT_OK(Dataset::Open(root, indexed->version()).status());
  EXPECT_EQ(
      std::distance(fs::directory_iterator(fs::path(root) / "_indices"), fs::directory_iterator()),
      1);
}

TEST(SegmentMetadata, ManifestWithHostileFilePathsIsCorrupt) {
  TempDirectory directory;
  const std::string root = directory.Child("ds");
  auto dataset = MakeDataset(root);
  ASSERT_NE(dataset, nullptr);
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Delete("id = 3"));
  const format::Manifest& good = dataset->manifest();
  // A readable data file outside the dataset, where the hostile paths point.
  fs::copy(fs::path(root) / good.fragments(0).files(0).path(), directory.Child("victim.arrow"));

  struct Case {
    std::string data_path;
    std::string deletion_path;
    std::string transaction_path;
    std::string expected;  // part of the message
  };
  const std::string data = good.fragments(0).files(0).path();
  const std::string deletion = good.fragments(0).deletion().path();
  const std::string transaction = good.transaction_file();
  const std::vector<Case> cases = {
      {"../victim.arrow", deletion, transaction, "fragment 0 names data file '../victim.arrow'"},
      {"data/../../victim.arrow", deletion, transaction, "fragment 0 names data file"},
      {directory.Child("victim.arrow"), deletion, transaction, "fragment 0 names data file"},
      {"data/nested/x.arrow", deletion, transaction, "not directly inside data/"},
      {"data/", deletion, transaction, "fragment 0 names data file"},
      {"data/..", deletion, transaction, "starting with '.'"},
      {"", deletion, transaction, "is empty"},
      {"_deletions/" + fs::path(deletion).filename().string(), deletion, transaction,
       "not inside data/"},
      {data, "../../victim.bin", transaction, "fragment 0 names deletion file '../../victim.bin'"},
      {data, "_deletions/../data/x", transaction, "fragment 0 names deletion file"},
      {data, deletion, "../victim.txn", "the transaction file '../victim.txn'"},
  };
  for (const auto& test : cases) {
    format::Manifest hostile = good;
    hostile.mutable_fragments(0)->mutable_files(0)->set_path(test.data_path);
    hostile.mutable_fragments(0)->mutable_deletion()->set_path(test.deletion_path);
    hostile.set_transaction_file(test.transaction_path);
    // Each case becomes the next version; the one before is hostile too, so publish by number.
    ASSERT_OK_AND_ASSIGN(auto newest, dataset::LatestVersionNumber(*dataset->storage()));
    hostile.set_version(*newest + 1);
    ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*dataset->storage(), hostile));
    ASSERT_TRUE(published);
    auto opened = Dataset::Open(root);
    ASSERT_FALSE(opened.ok()) << test.data_path << " " << test.deletion_path;
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status();
    EXPECT_TRUE(Contains(opened.status().message(), format::ManifestPath(*newest + 1)))
        << opened.status();
    EXPECT_TRUE(Contains(opened.status().message(), test.expected)) << opened.status();
  }
  // The good version still reads.
  ASSERT_OK_AND_ASSIGN(auto readable, Dataset::Open(root, good.version()));
  ASSERT_OK_AND_ASSIGN(uint64_t rows, readable->CountRows("id >= 0"));
  EXPECT_EQ(rows, 199u);
}

TEST(SegmentMetadata, CommitChecksTheModelFingerprintAndFamilyAgainstTheFiles) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory.Child("ds"));
  ASSERT_NE(dataset, nullptr);
  ASSERT_OK_AND_ASSIGN(auto segment, BuildSegment(*dataset, VectorIndex(), {0, 1}, nullptr));
  ASSERT_FALSE(segment.model_fingerprint().empty());

  format::SegmentMeta wrong_fingerprint = segment;
  wrong_fingerprint.set_model_fingerprint("0123456789abcdef");
  auto fingerprint = CommitSegments(*dataset, VectorIndex(), {wrong_fingerprint});
  ASSERT_FALSE(fingerprint.ok());
  EXPECT_EQ(KindOf(fingerprint.status()), ErrorKind::kInvalidArgument) << fingerprint.status();
  EXPECT_TRUE(Contains(fingerprint.status().message(), segment.uuid())) << fingerprint.status();
  EXPECT_TRUE(Contains(fingerprint.status().message(), "0123456789abcdef")) << fingerprint.status();
  EXPECT_TRUE(Contains(fingerprint.status().message(), segment.model_fingerprint()))
      << fingerprint.status();

  // IVF_FLAT files recorded as an IVF_SQ segment (the two take the same parameters).
  format::SegmentMeta wrong_family = segment;
  wrong_family.set_family("IVF_SQ");
  auto family = CommitSegments(*dataset, VectorIndex("IVF_SQ"), {wrong_family});
  ASSERT_FALSE(family.ok());
  EXPECT_EQ(KindOf(family.status()), ErrorKind::kInvalidArgument) << family.status();
  EXPECT_TRUE(Contains(family.status().message(), "recorded as IVF_SQ")) << family.status();
  EXPECT_TRUE(Contains(family.status().message(), "IVF_FLAT model")) << family.status();

  // Parameters rewritten to another metric than the model's.
  IndexSpec cosine = VectorIndex();
  cosine.params["metric"] = "cosine";
  format::SegmentMeta wrong_metric = segment;
  (*wrong_metric.mutable_params())["metric"] = "cosine";
  auto metric = CommitSegments(*dataset, cosine, {wrong_metric});
  ASSERT_FALSE(metric.ok());
  EXPECT_EQ(KindOf(metric.status()), ErrorKind::kInvalidArgument) << metric.status();
  EXPECT_TRUE(Contains(metric.status().message(), "metric")) << metric.status();

  // A BTREE segment recorded as indexing another column of another type.
  ASSERT_OK_AND_ASSIGN(auto btree, BuildSegment(*dataset, IdIndex(), {2}, nullptr));
  IndexSpec on_value{"value_idx", "value", "BTREE", {}};
  format::SegmentMeta wrong_column = btree;
  wrong_column.set_field_id(dataset->field_ids()[1]);
  wrong_column.set_index_name("value_idx");
  auto column = CommitSegments(*dataset, on_value, {wrong_column});
  ASSERT_FALSE(column.ok());
  EXPECT_EQ(KindOf(column.status()), ErrorKind::kInvalidArgument) << column.status();
  EXPECT_TRUE(Contains(column.status().message(), "holds values of type int64")) << column.status();

  ASSERT_OK_AND_ASSIGN(auto latest, dataset->Latest());
  EXPECT_EQ(latest->version(), dataset->version());
  ASSERT_OK(CommitSegments(*dataset, VectorIndex(), {segment}).status());
}

TEST(SegmentMetadata, ASegmentOfAnotherDatasetIsRejected) {
  TempDirectory directory;
  auto first = MakeDataset(directory.Child("a"));
  auto second = MakeDataset(directory.Child("b"));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const std::string identity = first->manifest().dataset_uuid();
  EXPECT_TRUE(format::IsCanonicalUuid(identity)) << identity;
  EXPECT_NE(identity, second->manifest().dataset_uuid());

  ASSERT_OK_AND_ASSIGN(auto segment, BuildSegment(*first, IdIndex(), {0}, nullptr));
  EXPECT_EQ(segment.dataset_uuid(), identity);
  // Same rows, same fragment ids, the segment's files copied over: only the identity differs.
  fs::create_directories(fs::path(directory.Child("b")) / "_indices");
  fs::copy(SegmentDirectoryOf(directory.Child("a"), segment),
           SegmentDirectoryOf(directory.Child("b"), segment));
  auto foreign = CommitSegments(*second, IdIndex(), {segment});
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(KindOf(foreign.status()), ErrorKind::kInvalidArgument) << foreign.status();
  EXPECT_TRUE(Contains(foreign.status().message(), identity)) << foreign.status();
  EXPECT_TRUE(Contains(foreign.status().message(), second->manifest().dataset_uuid()))
      << foreign.status();
  auto merged = MergeSegments(*second, {segment});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(KindOf(merged.status()), ErrorKind::kInvalidArgument) << merged.status();

  // Without an identity, the segment is of no dataset.
  format::SegmentMeta anonymous = segment;
  anonymous.clear_dataset_uuid();
  EXPECT_EQ(KindOf(CommitSegments(*first, IdIndex(), {anonymous}).status()),
            ErrorKind::kInvalidArgument);

  // Every kind of commit keeps the identity; merges and optimize stamp it on their segments.
  ASSERT_OK_AND_ASSIGN(auto committed, CommitSegments(*first, IdIndex(), {segment}));
  ASSERT_OK_AND_ASSIGN(auto appended, committed->Append(SimpleReader(200, 10)));
  ASSERT_OK_AND_ASSIGN(auto deleted, appended->Delete("id = 1"));
  ASSERT_OK_AND_ASSIGN(auto optimized, OptimizeIndexes(*deleted));
  for (const auto& kept : optimized.dataset->manifest().indexes(0).segments()) {
    EXPECT_EQ(kept.dataset_uuid(), identity);
  }
  ASSERT_OK_AND_ASSIGN(auto overwritten, optimized.dataset->Overwrite(SimpleReader(0, 5)));
  EXPECT_EQ(overwritten->manifest().dataset_uuid(), identity);
  EXPECT_EQ(deleted->manifest().dataset_uuid(), identity);

  // A manifest from before the field: identity unknown, and its own segments still commit.
  format::Manifest legacy = second->manifest();
  legacy.clear_dataset_uuid();
  PublishNext(*second, legacy);
  ASSERT_OK_AND_ASSIGN(auto unknown, Dataset::Open(directory.Child("b")));
  ASSERT_OK_AND_ASSIGN(auto legacy_segment, BuildSegment(*unknown, IdIndex(), {1}, nullptr));
  EXPECT_EQ(legacy_segment.dataset_uuid(), "");
  ASSERT_OK(CommitSegments(*unknown, IdIndex(), {legacy_segment}).status());
  EXPECT_EQ(KindOf(CommitSegments(*unknown, IdIndex(), {segment}).status()),
            ErrorKind::kInvalidArgument);
}

// Rewrites page 0 of a BTREE segment's pages.arrow with its first two entries swapped: a file
// that still decodes but whose sorted run is out of order.
void SwapFirstEntries(const std::string& pages_path) {
  std::shared_ptr<arrow::RecordBatch> page;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::shared_ptr<arrow::Schema> schema;
  {
    auto file = arrow::io::ReadableFile::Open(pages_path).ValueOrDie();
    auto reader = arrow::ipc::RecordBatchFileReader::Open(file).ValueOrDie();
    schema = reader->schema();
    for (int i = 0; i < reader->num_record_batches(); ++i) {
      batches.push_back(reader->ReadRecordBatch(i).ValueOrDie());
    }
  }
  auto keys = std::static_pointer_cast<arrow::Int64Array>(batches[0]->column(0));
  ASSERT_GE(keys->length(), 2);
  arrow::Int64Builder swapped;
  ASSERT_OK(swapped.Append(keys->Value(1)));
  ASSERT_OK(swapped.Append(keys->Value(0)));
  for (int64_t i = 2; i < keys->length(); ++i) ASSERT_OK(swapped.Append(keys->Value(i)));
  std::shared_ptr<arrow::Array> column;
  ASSERT_OK(swapped.Finish(&column));
  batches[0] =
      arrow::RecordBatch::Make(schema, batches[0]->num_rows(), {column, batches[0]->column(1)});
  auto out = arrow::io::FileOutputStream::Open(pages_path).ValueOrDie();
  auto writer = arrow::ipc::MakeFileWriter(out, schema).ValueOrDie();
  for (const auto& batch : batches) ASSERT_OK(writer->WriteRecordBatch(*batch));
  ASSERT_OK(writer->Close());
  ASSERT_OK(out->Close());
}

TEST(SegmentMetadata, DamagedBtreeSegmentMetWhileOptimizingIsCorruptNamingIt) {
  TempDirectory directory;
  const std::string root = directory.Child("ds");
  auto dataset = MakeDataset(root);
  ASSERT_NE(dataset, nullptr);
  ASSERT_OK_AND_ASSIGN(auto indexed, CreateIndex(*dataset, IdIndex()));
  ASSERT_OK_AND_ASSIGN(auto appended, indexed->Append(SimpleReader(200, 50)));
  ASSERT_OK_AND_ASSIGN(auto optimized, OptimizeIndexes(*appended));
  ASSERT_EQ(optimized.dataset->manifest().indexes(0).segments_size(), 2);
  const format::SegmentMeta damaged = optimized.dataset->manifest().indexes(0).segments(0);
  SwapFirstEntries((fs::path(SegmentDirectoryOf(root, damaged)) / "pages.arrow").string());

  OptimizeOptions options;
  options.merge.kind = MergePolicy::Kind::kMaxSegments;
  options.merge.max_segments = 1;
  auto merged = OptimizeIndexes(*optimized.dataset, options);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(KindOf(merged.status()), ErrorKind::kCorrupt) << merged.status();
  EXPECT_TRUE(Contains(merged.status().message(), damaged.uuid())) << merged.status();
  EXPECT_TRUE(Contains(merged.status().message(), "pages.arrow")) << merged.status();
}

TEST(SegmentMetadata, EmptyOrMalformedFragmentBitmapsSayWhatIsWrong) {
  format::SegmentMeta segment;
  segment.set_uuid(io::NewUuid());
  segment.set_index_name("p");
  auto empty = DecodeFragmentBitmap(segment);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(KindOf(empty.status()), ErrorKind::kCorrupt);
  EXPECT_TRUE(Contains(empty.status().message(), "empty fragment bitmap")) << empty.status();
  Roaring fragments;
  fragments.add(3);
  const std::string bytes = EncodeFragmentBitmap(fragments);
  for (const std::string& bad : {std::string("AAAA"), bytes.substr(0, bytes.size() - 1),
                                 bytes + "x", std::string(3, '\0')}) {
    segment.set_fragment_bitmap(bad);
    auto decoded = DecodeFragmentBitmap(segment);
    ASSERT_FALSE(decoded.ok()) << bad.size();
    EXPECT_EQ(KindOf(decoded.status()), ErrorKind::kCorrupt);
    EXPECT_TRUE(Contains(decoded.status().message(), segment.uuid())) << decoded.status();
  }
  segment.set_fragment_bitmap(bytes);
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeFragmentBitmap(segment));
  EXPECT_EQ(decoded, fragments);
}

// What reading a segment's file fails with becomes Corrupt naming the segment and the file,
// except failures of the storage and files a newer tessera wrote (a model format version this
// build does not read), which keep their kind: upgrading fixes those, not repair.
TEST(SegmentMetadata, SegmentFileErrorKeepsUnsupportedAndStorageFailures) {
  format::SegmentMeta segment;
  segment.set_uuid("0f4b9a4e-5f3c-4c1e-9a57-1d2e3f405162");
  segment.set_index_name("vec_idx");
  const auto damaged = SegmentFileError(arrow::Status::Invalid("bad bytes"), segment, "model.bin");
  EXPECT_EQ(KindOf(damaged), ErrorKind::kCorrupt);
  EXPECT_NE(damaged.message().find("model.bin"), std::string::npos) << damaged.ToString();
  EXPECT_NE(damaged.message().find("vec_idx"), std::string::npos) << damaged.ToString();
  const auto newer = SegmentFileError(Unsupported("format version 3"), segment, "model.bin");
  EXPECT_EQ(KindOf(newer), ErrorKind::kUnsupported) << newer.ToString();
  EXPECT_NE(newer.message().find("format version 3"), std::string::npos);
  const auto storage = SegmentFileError(Error(ErrorKind::kIOError, "disk"), segment, "model.bin");
  EXPECT_EQ(KindOf(storage), ErrorKind::kIOError);
}

}  // namespace
}  // namespace tessera::index::segment_metadata_test
