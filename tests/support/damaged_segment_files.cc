#include "support/damaged_segment_files.h"

#include <gtest/gtest.h>

#include "support/ipc_file_surgery.h"
#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::testing {

void ExpectDamagedFilesCorruptNamingThem(const index::IndexFamily& family,
                                         const BuiltSegment& segment,
                                         const std::string& dataset_path,
                                         const SegmentRowsRead& read) {
  for (const std::string& file : family.RequiredFiles(segment.meta)) {
    const std::string path = dataset_path + "/" + segment.directory.path + "/" + file;
    const std::string original = ReadBytes(path);
    WriteBytes(path, "not what was written");
    // The damage shows on open, or (files read per answer) when rows are read.
    auto opened = family.Open(segment.meta, segment.directory);
    arrow::Status status = opened.status();
    if (status.ok()) {
      const index::ScalarSegmentReader* reader = (*opened)->AsScalar();
      EXPECT_NE(reader, nullptr) << file;
      if (reader != nullptr) status = read(*reader);
    }
    EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << file << ": " << status.ToString();
    const std::string named = file.substr(0, file.find(".crc32c"));
    EXPECT_NE(status.message().find(named), std::string::npos) << status.ToString();
    WriteBytes(path, original);
  }
  EXPECT_OK(family.Open(segment.meta, segment.directory).status());
}

}  // namespace tessera::testing
