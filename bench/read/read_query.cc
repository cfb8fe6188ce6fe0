// read_query: the tessera side of bench/read (bench/run_read.sh, docs/benchmarks.md, "Filtered
// reads against DuckDB"), a plain executable the driver bench/read/read_bench.py runs.
//
//   read_query DATASET QUERIES [--repetitions R] [--versions V[,V...]]
//     QUERIES has one query a line, "OPERATION<TAB>FILTER" (OPERATION count or scan; an empty
//     FILTER counts or scans every row). Opens each version V of the dataset (a number, or
//     "latest", the default) once (a query::Snapshot, as a long-lived process holds it), then per
//     query two untimed runs on each (a process's first runs of a query are slower: its memory is
//     new) and R timed rounds, each round running the query once on
//     every version in turn: versions compared in one run share the machine's state of the
//     moment, which separate runs on a shared machine do not. count is query::Count; scan is
//     query::Read of every column, the consumer walking each batch and summing its rows.
//     Threads: TESSERA_NUM_THREADS, set by the driver. Prints one JSON line a query and version:
//     version, operation, filter, rows (the answer), median_ms, min_ms and the plan (explain
//     lines).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/query/explain.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/util/value_text.h"

namespace {

using Clock = std::chrono::steady_clock;

arrow::Result<uint64_t> RunOnce(const std::shared_ptr<const tessera::query::Snapshot>& snapshot,
                                const std::string& operation, const std::string& filter,
                                tessera::query::Explain* explain) {
  if (operation == "count") return tessera::query::Count(*snapshot, filter, explain);
  tessera::dataset::ScanOptions options;
  options.filter = filter;
  ARROW_ASSIGN_OR_RAISE(auto reader, tessera::query::Read(snapshot, options, explain));
  uint64_t rows = 0;
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    rows += static_cast<uint64_t>(batch->num_rows());
  }
  return rows;
}

std::string JsonString(const std::string& text) {
  std::string out;
  tessera::util::AppendJsonString(text, &out);
  return out;
}

arrow::Status Main(int argc, char** argv) {
  if (argc < 3) {
    return arrow::Status::Invalid(
        "usage: read_query DATASET QUERIES [--repetitions R] [--versions V[,V...]]");
  }
  int repetitions = 5;
  std::vector<std::string> versions = {"latest"};
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--repetitions") repetitions = std::stoi(argv[i + 1]);
    if (std::string(argv[i]) == "--versions") {
      versions.clear();
      std::istringstream list(argv[i + 1]);
      for (std::string name; std::getline(list, name, ',');) versions.push_back(name);
    }
  }
  std::vector<std::shared_ptr<const tessera::query::Snapshot>> snapshots;
  for (const std::string& name : versions) {
    std::optional<uint64_t> version;
    if (name != "latest") version = std::stoull(name);
    ARROW_ASSIGN_OR_RAISE(auto snapshot, tessera::query::Snapshot::Open(argv[1], version));
    snapshots.push_back(std::move(snapshot));
  }
  std::ifstream queries(argv[2]);
  std::string line;
  while (std::getline(queries, line)) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string operation = line.substr(0, tab);
    const std::string filter = line.substr(tab + 1);
    std::vector<tessera::query::Explain> explains(snapshots.size());
    std::vector<uint64_t> rows(snapshots.size());
    std::vector<std::vector<double>> times(snapshots.size());
    for (size_t v = 0; v < snapshots.size(); ++v) {
      ARROW_ASSIGN_OR_RAISE(rows[v], RunOnce(snapshots[v], operation, filter, &explains[v]));
      ARROW_RETURN_NOT_OK(RunOnce(snapshots[v], operation, filter, nullptr).status());
    }
    for (int r = 0; r < repetitions; ++r) {
      for (size_t v = 0; v < snapshots.size(); ++v) {
        const auto start = Clock::now();
        ARROW_ASSIGN_OR_RAISE(uint64_t again, RunOnce(snapshots[v], operation, filter, nullptr));
        times[v].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        if (again != rows[v])
          return arrow::Status::Invalid("answer changed between runs: ", filter);
      }
    }
    for (size_t v = 0; v < snapshots.size(); ++v) {
      std::sort(times[v].begin(), times[v].end());
      std::ostringstream plan;
      for (size_t i = 0; i < explains[v].lines.size(); ++i) {
        plan << (i ? "," : "") << JsonString(explains[v].lines[i]);
      }
      std::cout << "{\"version\":" << JsonString(versions[v])
                << ",\"operation\":" << JsonString(operation)
                << ",\"filter\":" << JsonString(filter) << ",\"rows\":" << rows[v]
                << ",\"median_ms\":" << times[v][times[v].size() / 2]
                << ",\"min_ms\":" << times[v].front() << ",\"plan\":[" << plan.str() << "]}"
                << std::endl;
    }
  }
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  const arrow::Status status = Main(argc, argv);
  if (!status.ok()) {
    std::cerr << "read_query: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
