// Fuzz target: a manifest file (_versions/<version>.manifest), opened the way every command opens
// a dataset. The input is written as the only manifest of a dataset root whose data, deletion
// and segment files are those of the template dataset, twice: as given (footer and checksum
// checks) and reframed with a valid checksum (protobuf decoding and what Dataset::Open
// validates: format version, version number, schema). An opened dataset is then counted,
// listed, scanned (also through its indexes) and its indexes described, which walks the
// fragments and segments it names.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tessera/dataset/dataset.h"
#include "tessera/format/paths.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_scan.h"

namespace {

using namespace tessera;

// The version the manifest claims, so that it is stored under its own name and Open gets past
// the "claims to be version" check; 1 when it does not decode.
uint64_t ClaimedVersion(std::string_view framed) {
  const std::string_view payload = fuzz::FramePayload(framed);
  format::Manifest manifest;
  if (!manifest.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return 1;
  return manifest.version();
}

// A dataset root of its own whose data, deletion, transaction and segment directories are the
// template's (symbolic links), so that manifests naming the template's files reach them.
const std::filesystem::path& DatasetRoot() {
  static const std::filesystem::path root = [] {
    const auto path = fuzz::ScratchRoot() / "manifest";
    std::filesystem::create_directories(path);
    for (const char* directory : {"data", "_deletions", "_transactions", "_indices"}) {
      std::filesystem::create_directory_symlink(fuzz::Template().root / directory,
                                                path / directory);
    }
    return path;
  }();
  return root;
}

void OpenAndRead(std::string_view file) {
  const auto& root = DatasetRoot();
  std::filesystem::remove_all(root / "_versions");
  const uint64_t version = ClaimedVersion(fuzz::Reframe(file));
  fuzz::WriteWholeFile(root / format::ManifestPath(version), file);
  auto opened = dataset::Dataset::Open(root.string());
  if (!opened.ok()) return;
  const auto& snapshot = *opened;
  fuzz::Ignore(snapshot->CountRows());
  fuzz::Ignore(snapshot->ListVersions());
  dataset::ScanOptions scan;
  scan.limit = 50;
  scan.with_row_address = true;
  fuzz::Ignore(snapshot->ScanToTable(scan));
  fuzz::Ignore(snapshot->CountRows("price > 10"));
  // The filtered scan of `tessera scan --where`: plans through the indexes the manifest lists.
  dataset::ScanOptions filtered;
  filtered.filter = "price < 5 OR category = 'a'";
  fuzz::Ignore(query::Scan(*snapshot, filtered));
  fuzz::Ignore(snapshot->Take({0, 5, (uint64_t{1} << 32) + 3}));
  for (const auto& summary : index::ListIndexes(*snapshot, /*include_system=*/true)) {
    fuzz::Ignore(index::DescribeIndex(*snapshot, summary.name));
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AsGivenAndReframed(fuzz::BytesOf(data, size), OpenAndRead);
  return 0;
}
