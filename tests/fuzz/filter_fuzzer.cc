// Fuzz target: filter strings (expr/filter.h, docs/filters.md). The input is parsed and bound
// against the template's schema (every column type of the synthetic data), evaluated on a
// 64-row batch of it, and must print (ToString) to a filter that parses back to the same
// rendering. A filter that binds is also run over the template dataset twice, by the plain scan
// (Dataset::ScanToTable) and by the index-planned scan (query::Scan, through the BTREE indexes
// on price and category), which must return the same rows.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fuzz_support.h"
#include "tessera/expr/filter.h"
#include "tessera/query/filtered_scan.h"

namespace {

using namespace tessera;

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  std::cerr << "filter '" << text << "': " << why << std::endl;
  std::abort();
}

void CheckRendering(const std::string& text, const expr::Filter& filter) {
  const std::string rendered = filter.ToString();
  auto reparsed = expr::Filter::Parse(rendered, filter.schema());
  if (!reparsed.ok()) {
    Fail(text, "its rendering '" + rendered + "' does not parse: " + reparsed.status().ToString());
  }
  if ((*reparsed)->ToString() != rendered) {
    Fail(text, "its rendering '" + rendered + "' parses back as '" + (*reparsed)->ToString() + "'");
  }
}

void CheckPlannedScan(const std::string& text) {
  const auto& snapshot = *fuzz::Template().dataset;
  dataset::ScanOptions options;
  options.filter = text;
  options.with_row_address = true;
  auto plain = snapshot.ScanToTable(options);
  auto planned = query::Scan(snapshot, options);
  if (plain.ok() != planned.ok()) {
    Fail(text, "the plain scan says " + plain.status().ToString() + " but the planned scan says " +
                   planned.status().ToString());
  }
  if (plain.ok() && !(*plain)->Equals(**planned)) {
    Fail(text, "the planned scan returns other rows than the plain scan:\n" + (*plain)->ToString() +
                   "\nversus\n" + (*planned)->ToString());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::BytesOf(data, size));
  const auto& batch = fuzz::TemplateBatch();
  auto filter = expr::Filter::Parse(text, batch->schema());
  if (!filter.ok()) return 0;
  fuzz::Ignore((*filter)->Evaluate(*batch));
  fuzz::Ignore((*filter)->Select(*batch));
  CheckRendering(text, **filter);
  CheckPlannedScan(text);
  return 0;
}
