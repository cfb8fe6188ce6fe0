// io::ReplaceFile: the new contents appear all at once, a failed write leaves the old file and
// no temporary behind, and a full disk is ResourceExhausted naming the file.
#include "tessera/io/replace_file.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/io/fault_injection.h"
#include "tessera/status.h"

namespace tessera::io::replace_file_test {
namespace {

using testing::TempDirectory;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Every entry of the directory, so that a leftover temporary shows.
std::vector<std::string> Entries(const TempDirectory& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory.path())) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(ReplaceFile, CreatesAndReplacesAFile) {
  TempDirectory directory;
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(ReplaceFile(path, "first"));
  EXPECT_EQ(Contents(path), "first");
  ASSERT_OK(ReplaceFile(path, "second, longer"));
  EXPECT_EQ(Contents(path), "second, longer");
  EXPECT_EQ(Entries(directory), std::vector<std::string>{"model.bin"});
}

TEST(ReplaceFile, StreamsThroughTheWriter) {
  TempDirectory directory;
  const std::string path = directory.Child("rows.arrow");
  ASSERT_OK(ReplaceFile(path, [](std::shared_ptr<arrow::io::OutputStream> stream) {
    ARROW_RETURN_NOT_OK(stream->Write("ab", 2));
    return stream->Write("cd", 2);
  }));
  EXPECT_EQ(Contents(path), "abcd");
}

TEST(ReplaceFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDirectory directory;
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(ReplaceFile(path, "old"));
  const arrow::Status failed =
      ReplaceFile(path, [](std::shared_ptr<arrow::io::OutputStream> stream) {
        ARROW_RETURN_NOT_OK(stream->Write("half of the new", 15));
        return InvalidArgument("the writer gave up");
      });
  EXPECT_EQ(KindOf(failed), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Contents(path), "old");
  EXPECT_EQ(Entries(directory), std::vector<std::string>{"model.bin"});
}

TEST(ReplaceFile, AFullDiskIsResourceExhaustedNamingTheFile) {
  TempDirectory directory;
  const std::string path = directory.Child("model.bin");
  ASSERT_OK(ReplaceFile(path, "old"));
  arrow::Status failed;
  {
    InjectedWriteError full("model.bin", ENOSPC);
    failed = ReplaceFile(path, "new");
  }
  EXPECT_EQ(KindOf(failed), ErrorKind::kResourceExhausted);
  EXPECT_NE(failed.message().find(path), std::string::npos) << failed.ToString();
  EXPECT_EQ(failed.message().find(".tmp-"), std::string::npos) << failed.ToString();
  EXPECT_EQ(Contents(path), "old");
  EXPECT_EQ(Entries(directory), std::vector<std::string>{"model.bin"});
}

TEST(ReplaceFile, AMissingDirectoryIsAnIOErrorNamingTheFile) {
  TempDirectory directory;
  const std::string path = directory.Child("missing/model.bin");
  const arrow::Status failed = ReplaceFile(path, "contents");
  EXPECT_EQ(KindOf(failed), ErrorKind::kIOError);
  EXPECT_NE(failed.message().find(path), std::string::npos) << failed.ToString();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ReplaceFile, APathWithoutDirectoryIsInTheWorkingDirectory) {
  TempDirectory directory;
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(directory.path());
  const arrow::Status written = ReplaceFile("plain.bin", "contents");
  std::filesystem::current_path(previous);
  ASSERT_OK(written);
  EXPECT_EQ(Contents(directory.Child("plain.bin")), "contents");
}

}  // namespace
}  // namespace tessera::io::replace_file_test
