// A full disk (ENOSPC, injected through io::InjectedWriteError) is ResourceExhausted naming the
// file and saying to free space — on every write path: data files, deletion files, index
// segment files, manifests — and the dataset stays readable at its last committed version.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/io/fault_injection.h"
#include "tessera/status.h"

namespace tessera::dataset::disk_full_test {
namespace {

using testing::SimpleReader;
using testing::TempDirectory;

// `status` is the disk-full error for a file under `directory` of the dataset.
void ExpectDiskFull(const arrow::Status& status, const std::string& dataset_path,
                    const std::string& directory) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kResourceExhausted) << status.ToString();
  EXPECT_NE(status.message().find(dataset_path + "/" + directory + "/"), std::string::npos)
      << status.ToString();
  EXPECT_NE(status.message().find("free space"), std::string::npos) << status.ToString();
}

TEST(DiskFull, EveryWritePathReportsResourceExhaustedNamingTheFile) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto data, Dataset::Create(path, SimpleReader(0, 100)));

  {
    const io::InjectedWriteError full("data/", ENOSPC);
    ExpectDiskFull(data->Append(SimpleReader(100, 50)).status(), path, "data");
  }
  {
    const io::InjectedWriteError full("_versions/", ENOSPC);
    ExpectDiskFull(data->Append(SimpleReader(100, 50)).status(), path, "_versions");
  }
  {
    const io::InjectedWriteError full("_deletions/", ENOSPC);
    ExpectDiskFull(data->Delete("id < 10").status(), path, "_deletions");
  }
  {
    const io::InjectedWriteError full("_indices/", EDQUOT);
    index::IndexSpec spec{"id_idx", "id", "BTREE", {}};
    ExpectDiskFull(index::CreateIndex(*data, spec).status(), path, "_indices");
  }
  {
    // Other failures of the storage stay IOError.
    const io::InjectedWriteError broken("data/", EIO);
    const arrow::Status status = data->Append(SimpleReader(100, 50)).status();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kIOError) << status.ToString();
  }

  // Nothing was committed; with space again, writes succeed.
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(path));
  EXPECT_EQ(reopened->version(), 1u);
  EXPECT_EQ(reopened->CountRows(), 100u);
  ASSERT_OK_AND_ASSIGN(auto appended, reopened->Append(SimpleReader(100, 50)));
  EXPECT_EQ(appended->CountRows(), 150u);
}

}  // namespace
}  // namespace tessera::dataset::disk_full_test
