// Fuzz target: a data fragment file (data/*.arrow, an Arrow IPC file). The input replaces the
// data file of the template's first fragment (128 rows of every column type the synthetic data
// has: int64, fixed_size_list<float32>, string, float64, timestamp, list<string>), which is
// then opened with dataset::FragmentReader and read batch by batch, scanned, filtered on the
// string and list columns, taken from, deleted from, and indexed.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/index/lifecycle.h"

namespace {

using namespace tessera;

void ReadFragment(const dataset::Dataset& snapshot, const format::Fragment& fragment) {
  auto reader = dataset::FragmentReader::Open(*snapshot.storage(), fragment, snapshot.schema(), {});
  if (!reader.ok()) return;
  for (int batch = 0; batch < (*reader)->num_batches(); ++batch) {
    fuzz::Ignore((*reader)->ReadBatch(batch));
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& snapshot = *fuzz::Template().dataset;
  const format::Fragment& fragment = snapshot.manifest().fragments(0);
  const std::string& relative = fragment.files(0).path();
  fuzz::ReplaceTemplateFile(relative, fuzz::BytesOf(data, size));
  ReadFragment(snapshot, fragment);
  fuzz::Ignore(snapshot.ScanToTable({}));
  fuzz::Ignore(snapshot.CountRows("text LIKE '%a%' OR category = 'x'"));
  fuzz::Ignore(snapshot.CountRows("array_has_any(tags, ['red', 'blue']) AND price < 50"));
  fuzz::Ignore(snapshot.Take({0, 5, 63, 64, 127}));
  fuzz::Ignore(snapshot.Delete("id = 10"));
  fuzz::Ignore(index::CreateIndex(snapshot, {"fuzzed_text", "text", "BTREE", {}}));
  fuzz::ResetTemplate({relative});
  return 0;
}
