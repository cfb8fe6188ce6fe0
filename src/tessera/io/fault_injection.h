// Crash points for tests of crash safety.
//
// A test process sets TESSERA_CRASH_AT=<point> (e.g. "commit.before_manifest") and the
// library kills its own process with SIGKILL when it reaches that point, exactly as an
// out-of-memory killer or a power cut would. Unset, a crash point costs one cached branch.
#pragma once

#include <string_view>

namespace tessera::io {

// Points in the commit protocol (dataset/commit.cc).
inline constexpr std::string_view kCrashAfterDataFiles = "commit.after_data_files";
inline constexpr std::string_view kCrashBeforeManifest = "commit.before_manifest";
inline constexpr std::string_view kCrashWhileWritingManifest = "commit.while_writing_manifest";
// In an index build (index/build_context.cc): the segment's files are written, nothing commits.
inline constexpr std::string_view kCrashAfterSegmentBuild = "index.after_segment_build";

// Kills the process with SIGKILL if TESSERA_CRASH_AT names `point`.
void CrashPoint(std::string_view point);

}  // namespace tessera::io
