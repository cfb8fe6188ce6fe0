// Format versions: manifests of format 1 (before block checksums and dataset identity) and
// segments of index format 1 are refused with Unsupported naming the version and what to do,
// never read as if their files had checksums (which would report every file as Corrupt).
// Manifests naming external files are at format 3, so that builds reading only 2 refuse them
// instead of taking the user's files for their own; others stay at 2.
#include <gtest/gtest.h>

#include "support/parquet_files.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/format/paths.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::format_version_test {
namespace {

TEST(FormatVersion, AManifestOfAnotherFormatIsUnsupportedNamingItAndTheFix) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 10)));
  EXPECT_EQ(data->manifest().format_version(), dataset::kManifestFormatVersion);
  for (uint32_t format : {0u, 1u, dataset::kExternalObjectsFormatVersion + 1}) {
    format::Manifest other = data->manifest();
    other.set_version(data->version() + 1);
    other.set_format_version(format);
    ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*data->storage(), other));
    ASSERT_TRUE(published);
    auto opened = dataset::Dataset::Open(directory.Child("ds"));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(KindOf(opened.status()), format == 0 ? ErrorKind::kCorrupt : ErrorKind::kUnsupported)
        << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("format version " + std::to_string(format)),
              std::string::npos)
        << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("reads versions 2 to 4"), std::string::npos)
        << opened.status().ToString();
    if (format != 0) {
      EXPECT_NE(opened.status().message().find(format == 1 ? "create it anew" : "newer tessera"),
                std::string::npos)
          << opened.status().ToString();
    }
    // The version before still opens.
    ASSERT_OK_AND_ASSIGN(data, dataset::Dataset::Open(directory.Child("ds"), data->version()));
    ASSERT_OK(data->storage()->DeleteFile(format::ManifestPath(other.version())));
  }
}

TEST(FormatVersion, ManifestsNamingExternalFilesAreAtFormatThreeAndOthersAtTwo) {
  testing::TempDirectory directory;
  const std::string file = directory.Child("part.parquet");
  testing::WriteParquet(file, testing::SimpleBatch(0, 10));
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::CreateExternal(directory.Child("ds"), {file}));
  EXPECT_EQ(data->manifest().format_version(), dataset::kExternalFilesFormatVersion);
  ASSERT_OK_AND_ASSIGN(data, data->Append(testing::SimpleReader(10, 5)));
  EXPECT_EQ(data->manifest().format_version(), dataset::kExternalFilesFormatVersion);
  ASSERT_OK_AND_ASSIGN(auto reopened, dataset::Dataset::Open(directory.Child("ds")));
  EXPECT_EQ(reopened->CountRows(), 15u);
  // Once no external file is left, the dataset is readable by builds that read only 2 again.
  ASSERT_OK_AND_ASSIGN(data, data->Overwrite(testing::SimpleReader(0, 3)));
  EXPECT_EQ(data->manifest().format_version(), dataset::kManifestFormatVersion);
  ASSERT_OK_AND_ASSIGN(auto native, dataset::Dataset::Create(directory.Child("native"),
                                                             testing::SimpleReader(0, 3)));
  EXPECT_EQ(native->manifest().format_version(), dataset::kManifestFormatVersion);
}

TEST(FormatVersion, ManifestsNamingExternalObjectsAreAtFormatFour) {
  format::Manifest manifest;
  auto* local = manifest.add_fragments()->add_files()->mutable_external();
  local->set_location("/data/part-0.parquet");
  EXPECT_EQ(dataset::FormatVersionFor(manifest), dataset::kExternalFilesFormatVersion);
  auto* object = manifest.add_fragments()->add_files()->mutable_external();
  object->set_location("s3://bucket/exports/part-1.parquet");
  object->set_etag("\"0123\"");
  EXPECT_EQ(dataset::FormatVersionFor(manifest), dataset::kExternalObjectsFormatVersion);
}

TEST(FormatVersion, ASegmentOfIndexFormatOneIsUnsupportedAtCommit) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 10)));
  const index::IndexSpec spec{"id_idx", "id", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(auto segment, index::BuildSegment(*data, spec, {}, nullptr));
  EXPECT_EQ(segment.index_format_version(), index::kIndexFormatVersion);
  format::SegmentMeta old = segment;
  old.set_index_format_version(1);
  auto committed = index::CommitSegments(*data, spec, {old});
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(KindOf(committed.status()), ErrorKind::kUnsupported) << committed.status().ToString();
  EXPECT_NE(committed.status().message().find("index format version 1"), std::string::npos)
      << committed.status().ToString();
  ASSERT_OK(index::CommitSegments(*data, spec, {segment}).status());
}

}  // namespace
}  // namespace tessera::format_version_test
