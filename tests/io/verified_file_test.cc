// Block checksums (io/block_checksums.h, checksummed_output.h, verified_file.h): what is written
// through a checksummed stream reads back verified; any damaged, missing or resized byte range
// is Corrupt naming the file, and only the blocks a read uses are checked.
#include "tessera/io/verified_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/io/checksummed_output.h"
#include "tessera/status.h"

namespace tessera::io::verified_file_test {
namespace {

class VerifiedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(storage_, Storage::Open(directory_.path().string()));
    std::mt19937 random(3);
    contents_.resize(20 * kBlockBytes + 1000);  // above kEagerReadBytes
    for (auto& byte : contents_) byte = static_cast<char>(random());
    ASSERT_OK_AND_ASSIGN(auto stream, OpenChecksummedForWrite(*storage_, "f.bin"));
    // Uneven pieces exercise blocks split across writes.
    size_t written = 0;
    for (size_t piece : {size_t{1}, size_t{4095}, size_t{5000}, size_t{20000}}) {
      ASSERT_OK(stream->Write(contents_.data() + written, static_cast<int64_t>(piece)));
      written += piece;
    }
    ASSERT_OK(stream->Write(contents_.data() + written,
                            static_cast<int64_t>(contents_.size() - written)));
    ASSERT_OK(stream->Close());
  }

  std::string Path(const std::string& name) const { return directory_.Child(name); }

  void Overwrite(const std::string& name, size_t offset, char value) {
    std::fstream file(Path(name), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(offset));
    file.put(value);
  }

  arrow::Result<std::shared_ptr<VerifiedFile>> OpenFile() {
    return VerifiedFile::Open(*storage_, "f.bin", "test file f.bin", "restore it");
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Storage> storage_;
  std::string contents_;
};

TEST_F(VerifiedFileTest, ReadsBackWhatWasWritten) {
  ASSERT_OK_AND_ASSIGN(auto file, OpenFile());
  ASSERT_OK_AND_ASSIGN(auto all, file->ReadAt(0, static_cast<int64_t>(contents_.size())));
  ASSERT_OK(file->VerifyRange(all->data(), all->size()));
  EXPECT_EQ(all->ToString(), contents_);
  std::string copy(100, '\0');
  ASSERT_OK_AND_ASSIGN(int64_t read, file->ReadAt(5000, 100, copy.data()));
  EXPECT_EQ(read, 100);
  EXPECT_EQ(copy, contents_.substr(5000, 100));
}

TEST_F(VerifiedFileTest, AFlippedByteIsCorruptOnlyWhereItIsRead) {
  const size_t damaged = 7 * kBlockBytes + 17;
  Overwrite("f.bin", damaged, static_cast<char>(contents_[damaged] ^ 0x20));
  ASSERT_OK_AND_ASSIGN(auto file, OpenFile());
  // Small reads are verified as they are read.
  ASSERT_OK(file->ReadAt(0, 100).status());
  auto bad = file->ReadAt(static_cast<int64_t>(damaged) - 5, 10);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(KindOf(bad.status()), ErrorKind::kCorrupt);
  EXPECT_NE(bad.status().message().find("test file f.bin"), std::string::npos);
  EXPECT_NE(bad.status().message().find("restore it"), std::string::npos);
  // A large read is returned zero-copy; the ranges used are verified by the caller.
  ASSERT_OK_AND_ASSIGN(auto all, file->ReadAt(0, static_cast<int64_t>(contents_.size())));
  EXPECT_OK(file->VerifyRange(all->data(), 7 * kBlockBytes));
  EXPECT_OK(file->VerifyRange(all->data() + 8 * kBlockBytes, 100));
  auto status = file->VerifyRange(all->data() + damaged, 1);
  EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt);
  // Once a block failed it keeps failing.
  EXPECT_EQ(KindOf(file->VerifyOffsets(static_cast<int64_t>(damaged), 1)), ErrorKind::kCorrupt);
}

TEST_F(VerifiedFileTest, ATruncatedOrExtendedFileIsCorrupt) {
  std::filesystem::resize_file(Path("f.bin"), contents_.size() - 1);
  auto truncated = OpenFile();
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(KindOf(truncated.status()), ErrorKind::kCorrupt);
  std::filesystem::resize_file(Path("f.bin"), contents_.size() + 1);
  EXPECT_EQ(KindOf(OpenFile().status()), ErrorKind::kCorrupt);
}

TEST_F(VerifiedFileTest, AMissingOrDamagedChecksumFileIsCorrupt) {
  Overwrite("f.bin.crc32c", 30, 'x');
  auto damaged = OpenFile();
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(KindOf(damaged.status()), ErrorKind::kCorrupt);
  EXPECT_NE(damaged.status().message().find("f.bin.crc32c"), std::string::npos);
  std::filesystem::remove(Path("f.bin.crc32c"));
  auto missing = OpenFile();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kCorrupt);
  EXPECT_NE(missing.status().message().find("no checksum file"), std::string::npos);
}

TEST_F(VerifiedFileTest, AMissingFileIsNotFound) {
  std::filesystem::remove(Path("f.bin"));
  EXPECT_EQ(KindOf(OpenFile().status()), ErrorKind::kNotFound);
}

TEST_F(VerifiedFileTest, RangesOutsideTheFileAreCorrupt) {
  ASSERT_OK_AND_ASSIGN(auto file, OpenFile());
  EXPECT_EQ(KindOf(file->VerifyOffsets(-1, 5)), ErrorKind::kCorrupt);
  EXPECT_EQ(KindOf(file->VerifyOffsets(static_cast<int64_t>(contents_.size()), 1)),
            ErrorKind::kCorrupt);
  const char elsewhere[4] = {};
  EXPECT_EQ(KindOf(file->VerifyRange(reinterpret_cast<const uint8_t*>(elsewhere), 4)),
            ErrorKind::kCorrupt);
  EXPECT_EQ(KindOf(file->ReadAt(-3, 2).status()), ErrorKind::kCorrupt);
}

}  // namespace
}  // namespace tessera::io::verified_file_test
