// A manifest whose creation time lies outside what a std::chrono::system_clock time point holds
// (before 1970 or after 2262, as only a hand-made manifest has) is Corrupt naming the manifest,
// and `ListVersions` lists it as unreadable, instead of overflowing where the time is shown (a
// manifest fuzzer finding).
#include <gtest/gtest.h>

#include <limits>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/status.h"

namespace tessera::manifest_creation_time_test {
namespace {

TEST(ManifestCreationTime, OutOfRangeIsCorruptAndListedAsUnreadable) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 10)));
  const int64_t kOutOfRange[] = {229903172664760089, std::numeric_limits<int64_t>::max(), -1,
                                 std::numeric_limits<int64_t>::min()};
  uint64_t version = data->version();
  for (int64_t micros : kOutOfRange) {
    format::Manifest hostile = data->manifest();
    hostile.set_version(++version);
    hostile.set_created_at_micros(micros);
    ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*data->storage(), hostile));
    ASSERT_TRUE(published);
    auto opened = dataset::Dataset::Open(directory.Child("ds"), version);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("creation time " + std::to_string(micros)),
              std::string::npos)
        << opened.status().ToString();
  }
  ASSERT_OK_AND_ASSIGN(auto versions, data->ListVersions());
  ASSERT_EQ(versions.size(), 1u + std::size(kOutOfRange));
  EXPECT_TRUE(versions.front().unreadable.empty());
  for (size_t i = 1; i < versions.size(); ++i) {
    EXPECT_NE(versions[i].unreadable.find("creation time"), std::string::npos)
        << versions[i].unreadable;
  }

  // The epoch itself is a creation time like any other.
  format::Manifest edge = data->manifest();
  edge.set_version(++version);
  edge.set_created_at_micros(0);
  ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*data->storage(), edge));
  ASSERT_TRUE(published);
  ASSERT_OK(dataset::Dataset::Open(directory.Child("ds"), version).status());
}

}  // namespace
}  // namespace tessera::manifest_creation_time_test
