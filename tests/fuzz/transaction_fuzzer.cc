// Fuzz target: a transaction file (_transactions/*.txn), read the way the library reads one: by
// a writer that lost a commit race and rebases over the transactions committed since its
// snapshot. The input becomes the transaction of a version committed on top of the template's
// latest one (as given, and reframed with a valid checksum so that it reaches the protobuf
// decoder and Operation::Rebase); then an append, a delete or an index drop (by the input's
// length) started from the older snapshot tries to commit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/index/lifecycle.h"

namespace {

using namespace tessera;

constexpr const char* kTransactionPath = "_transactions/fuzz.txn";

// Publishes a copy of the latest manifest as the next version, naming `transaction` as the
// transaction that produced it.
void PublishConcurrentVersion(std::string_view transaction) {
  const auto& snapshot = *fuzz::Template().dataset;
  fuzz::ReplaceTemplateFile(kTransactionPath, transaction);
  format::Manifest next = snapshot.manifest();
  next.set_version(snapshot.version() + 1);
  next.set_transaction_file(kTransactionPath);
  auto published = dataset::TryPublishManifest(*snapshot.storage(), next);
  if (!published.ok() || !*published) std::abort();  // the fixture is broken, not the parser
}

// `operation` (0, 1, 2): an append, a delete or an index drop. Commits fsync, so one operation
// per input keeps the target fast; which one is a function of the input.
void RebaseOver(std::string_view transaction, int operation) {
  const auto& snapshot = *fuzz::Template().dataset;
  PublishConcurrentVersion(transaction);
  if (operation == 0) {
    auto rows = fuzz::TemplateBatch()->Slice(0, 4);
    auto reader = arrow::RecordBatchReader::Make({rows}, rows->schema());
    if (reader.ok()) fuzz::Ignore(snapshot.Append(*reader));
  } else if (operation == 1) {
    fuzz::Ignore(snapshot.Delete("id = 10"));
  } else {
    fuzz::Ignore(index::DropIndex(snapshot, "price_btree"));
  }
  fuzz::ResetTemplate();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int operation = static_cast<int>(size % 3);
  fuzz::AsGivenAndReframed(fuzz::BytesOf(data, size),
                           [operation](std::string_view file) { RebaseOver(file, operation); });
  return 0;
}
