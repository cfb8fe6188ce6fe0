// tessera_test_reader: a streamed read (query::Read) that tests run as a separate process, so
// that its memory is measured from a fresh start (tests/query/filtered_read_test.cc): Arrow's
// memory pool only knows its peak since the process began, and peak RSS too.
//
//   tessera_test_reader DATASET --where EXPR [--columns A,B,...]
//
// Opens the latest version, reads every batch passing EXPR and drops it at once, and prints one
// line on stdout:
//   rows=<rows read> batches=<n> largest_batch=<rows> pool_before=<bytes> pool_peak=<bytes>
//   rss_before_kib=<VmRSS before the read> rss_peak_kib=<VmHWM after it>
//   anon_peak_kib=<the largest RssAnon seen once planned and after each batch>
// pool_*: arrow::default_memory_pool(), which every Arrow allocation of the read (builders,
// compute kernels) uses; pool_peak is the process's peak. RSS counts the pages of memory-mapped
// files read (data files, segments) too; RssAnon leaves them out. On failure, `error: <Kind>:
// <message>` on stderr and exit code 1; bad usage exits with 2.
#include <arrow/api.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace {

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 when unavailable.
int64_t StatusKib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  }
  return -1;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = text.find(',', begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return parts;
}

int Fail(const arrow::Status& status) {
  std::cerr << "error: " << tessera::ErrorKindName(tessera::KindOf(status)) << ": "
            << status.message() << std::endl;
  return 1;
}

arrow::Status Run(const std::string& uri, const tessera::dataset::ScanOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, tessera::query::Snapshot::Open(uri));
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  const int64_t pool_before = pool->bytes_allocated();
  const int64_t rss_before = StatusKib("VmRSS");
  const int64_t anon_before = StatusKib("RssAnon");
  ARROW_ASSIGN_OR_RAISE(auto reader, tessera::query::Read(std::move(snapshot), options));
  int64_t anon_peak = StatusKib("RssAnon");
  int64_t rows = 0;
  int64_t batches = 0;
  int64_t largest = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    rows += batch->num_rows();
    ++batches;
    largest = std::max(largest, batch->num_rows());
    anon_peak = std::max(anon_peak, StatusKib("RssAnon"));
  }
  std::cout << "rows=" << rows << " batches=" << batches << " largest_batch=" << largest
            << " pool_before=" << pool_before << " pool_peak=" << pool->max_memory()
            << " rss_before_kib=" << rss_before << " rss_peak_kib=" << StatusKib("VmHWM")
            << " anon_before_kib=" << anon_before << " anon_peak_kib=" << anon_peak << std::endl;
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: tessera_test_reader DATASET --where EXPR [--columns A,B]\n";
    return 2;
  }
  tessera::dataset::ScanOptions options;
  for (int i = 2; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "option " << option << " needs a value\n";
      return 2;
    }
    if (option == "--where") {
      options.filter = argv[i + 1];
    } else if (option == "--columns") {
      options.columns = SplitCommas(argv[i + 1]);
    } else {
      std::cerr << "unknown option " << option << "\n";
      return 2;
    }
  }
  const arrow::Status status = Run(argv[1], options);
  return status.ok() ? 0 : Fail(status);
}
