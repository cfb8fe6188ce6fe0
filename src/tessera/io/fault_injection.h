// Faults for tests: crash points and injected write errors.
//
// Crash points: a test process sets TESSERA_CRASH_AT=<point> (e.g. "commit.before_manifest")
// and the library kills its own process with SIGKILL when it reaches that point, exactly as an
// out-of-memory killer or a power cut would. Unset, a crash point costs one cached branch.
//
// Injected write errors: while an InjectedWriteError is alive, every write through io::Storage
// (streams from OpenForWrite, WriteFile, PutIfAbsent: data files, deletion files, segment
// files, manifests, transactions) and io::ReplaceFile (model files) to a path that contains
// `path_part` fails as if write(2) had set errno to `error` — ENOSPC to test a full disk without
// root or a small filesystem. In-process only (tests call it directly); with none alive a write
// costs one atomic load.
#pragma once

#include <string>
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

// Makes writes to paths containing `path_part` (relative to the dataset root, e.g. "data/",
// "_versions/") fail with `error` while alive. One at a time per process.
class InjectedWriteError {
 public:
  InjectedWriteError(std::string path_part, int error);
  ~InjectedWriteError();
  InjectedWriteError(const InjectedWriteError&) = delete;
  InjectedWriteError& operator=(const InjectedWriteError&) = delete;
};

// The errno an alive InjectedWriteError sets for a write to `relative_path`; 0 when none.
int InjectedWriteErrorFor(std::string_view relative_path);

}  // namespace tessera::io
