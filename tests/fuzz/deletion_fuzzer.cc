// Fuzz target: a deletion file (_deletions/*.bin: a framed portable roaring bitmap). The input
// becomes the deletion file of the template's first fragment, as given and reframed with a valid
// checksum; the manifest's deleted-row count is set to what the bitmap holds (when it decodes),
// so that the bitmap reaches the readers: LoadDeletionVector, then a scan, a filtered count, a
// take and a delete (which merges it with new deletions) of that version.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <roaring/roaring.hh>
#include <string>

#include "fuzz_support.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/deletion_vector.h"

namespace {

using namespace tessera;

constexpr const char* kDeletionPath = "_deletions/fuzz.bin";

// The cardinality the manifest should declare: the bitmap's, as CRoaring decodes the payload
// (0 when it does not decode; the library must then say Corrupt).
uint64_t DeclaredCount(std::string_view framed) {
  const std::string_view payload = fuzz::FramePayload(framed);
  try {
    return Roaring::readSafe(payload.data(), payload.size()).cardinality();
  } catch (const std::exception&) {
    return 0;
  }
}

void ReadWithDeletions(std::string_view file) {
  const auto& snapshot = *fuzz::Template().dataset;
  fuzz::ReplaceTemplateFile(kDeletionPath, file);
  auto manifest = std::make_shared<format::Manifest>(snapshot.manifest());
  format::Fragment* fragment = manifest->mutable_fragments(0);
  fragment->mutable_deletion()->set_path(kDeletionPath);
  fragment->mutable_deletion()->set_num_deleted(DeclaredCount(fuzz::Reframe(file)));
  fuzz::Ignore(dataset::LoadDeletionVector(*snapshot.storage(), *fragment));
  auto damaged = dataset::Dataset::FromManifest(snapshot.storage(), manifest);
  if (!damaged.ok()) std::abort();  // the fixture is broken, not the parser
  const auto& version = **damaged;
  fuzz::Ignore(version.CountRows());
  fuzz::Ignore(version.ScanToTable({}));
  fuzz::Ignore(version.CountRows("price > 10"));
  fuzz::Ignore(version.Take({0, 3, 64, 127}));
  fuzz::Ignore(version.Delete("id = 10"));
  fuzz::ResetTemplate();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AsGivenAndReframed(fuzz::BytesOf(data, size), ReadWithDeletions);
  return 0;
}
