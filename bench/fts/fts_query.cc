// fts_query: the tessera side of bench/fts (bench/run_fts.sh, docs/benchmarks.md, "Full-text
// search"), a plain executable the driver bench/fts/fts_bench.py runs.
//
//   fts_query build DATASET [--memory-limit BYTES]
//     (Re)creates the INVERTED index 'gloss_fts' (with positions) on column gloss, in one
//     segment. Prints JSON: build_s, index_bytes (the segments' sizes), accounted_peak_bytes and
//     spill_runs (what the writer counted, from the segment's details), base_rss_bytes (resident
//     memory after opening the dataset, before the build), peak_rss_bytes (VmHWM: the process's
//     largest resident set, mapped file pages included), base/peak_anonymous_bytes (RssAnon
//     before and, sampled, during the build: heap and Arrow's pool only) and
//     arrow_pool_peak_bytes (the default Arrow pool's largest allocation total).
//   fts_query query DATASET QUERIES [--repetitions R]
//     QUERIES has one query a line, "TYPE<TAB>TEXT" (match, phrase, boolean). Runs each query once
//     (warm-up, the answer), then R sequential passes over all of them, single-threaded, top 10.
//     Prints JSON: per type the median per-query latency, its 95th percentile, QPS (queries of
//     the type / the median pass time over them) and the top-10 ids of every query.
#include <sys/resource.h>
#include <unistd.h>

#include <arrow/memory_pool.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/text_search.h"
#include "tessera/util/value_text.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kIndexName = "gloss_fts";

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

// A field of /proc/self/status in bytes ("VmHWM", "RssAnon"). VmHWM, unlike getrusage's
// ru_maxrss, starts afresh at exec: ru_maxrss keeps the parent's peak (the Python driver's).
uint64_t StatusBytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream value(line.substr(field.size() + 1));
      uint64_t kilobytes = 0;
      value >> kilobytes;
      return kilobytes * 1024;
    }
  }
  return 0;
}

uint64_t PeakRssBytes() { return StatusBytes("VmHWM"); }

// The largest anonymous resident memory (heap, Arrow's pool; not file pages a reader maps)
// seen while it runs, sampled every millisecond.
class AnonymousPeak {
 public:
  AnonymousPeak()
      : thread_([this] {
          while (!stop_) {
            peak_ = std::max<uint64_t>(peak_, StatusBytes("RssAnon"));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  uint64_t Stop() {
    stop_ = true;
    thread_.join();
    return std::max<uint64_t>(peak_, StatusBytes("RssAnon"));
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> peak_{0};
  std::thread thread_;
};

uint64_t CurrentRssBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string Quoted(const std::string& text) {
  std::string out;
  tessera::util::AppendJsonString(text, &out);
  return out;
}

arrow::Status Build(const std::string& path, const std::string& memory_limit) {
  ARROW_ASSIGN_OR_RAISE(auto dataset, tessera::dataset::Dataset::Open(path));
  ARROW_ASSIGN_OR_RAISE(dataset, tessera::index::DropIndex(*dataset, kIndexName, true));
  const uint64_t base_rss = CurrentRssBytes();
  const uint64_t base_anonymous = StatusBytes("RssAnon");
  AnonymousPeak anonymous;
  tessera::index::IndexSpec spec{kIndexName, "gloss", "INVERTED", {{"with_position", "true"}}};
  if (!memory_limit.empty()) spec.params["memory_limit"] = memory_limit;
  const auto start = Clock::now();
  ARROW_ASSIGN_OR_RAISE(auto indexed, tessera::index::CreateIndex(*dataset, spec));
  const double seconds = Seconds(start);
  const uint64_t anonymous_peak = anonymous.Stop();
  uint64_t index_bytes = 0;
  std::string accounted = "0", spill_runs = "0";
  for (const auto& definition : indexed->manifest().indexes()) {
    if (definition.name() != kIndexName) continue;
    for (const auto& segment : definition.segments()) {
      index_bytes += segment.size_bytes();
      const auto& details = segment.details();
      if (details.count("build_peak_memory_bytes"))
        accounted = details.at("build_peak_memory_bytes");
      if (details.count("build_spill_runs")) spill_runs = details.at("build_spill_runs");
    }
  }
  std::cout << "{\"build_s\": " << seconds << ", \"index_bytes\": " << index_bytes
            << ", \"accounted_peak_bytes\": " << accounted << ", \"spill_runs\": " << spill_runs
            << ", \"base_rss_bytes\": " << base_rss << ", \"peak_rss_bytes\": " << PeakRssBytes()
            << ", \"base_anonymous_bytes\": " << base_anonymous
            << ", \"peak_anonymous_bytes\": " << anonymous_peak
            << ", \"arrow_pool_peak_bytes\": " << arrow::default_memory_pool()->max_memory()
            << ", \"arrow_pool\": \"" << arrow::default_memory_pool()->backend_name() << "\""
            << "}\n";
  return arrow::Status::OK();
}

arrow::Result<tessera::query::TextQueryType> TypeOf(const std::string& name) {
  return tessera::query::ParseTextQueryType(name);
}

arrow::Status Query(const std::string& path, const std::string& queries_path, int repetitions) {
  // One snapshot for every query, as a server or Python keeps one per version.
  ARROW_ASSIGN_OR_RAISE(auto snapshot, tessera::query::Snapshot::Open(path));
  std::ifstream file(queries_path);
  if (!file) return arrow::Status::IOError("cannot read ", queries_path);
  std::vector<std::pair<std::string, tessera::query::TextSearchOptions>> queries;
  std::string line;
  while (std::getline(file, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    tessera::query::TextSearchOptions options;
    ARROW_ASSIGN_OR_RAISE(options.type, TypeOf(line.substr(0, tab)));
    options.text = line.substr(tab + 1);
    options.columns = {{"gloss", 1.0}};
    options.k = 10;
    options.projection = {"id"};
    queries.emplace_back(line.substr(0, tab), std::move(options));
  }
  std::map<std::string, std::vector<size_t>> by_type;
  for (size_t i = 0; i < queries.size(); ++i) by_type[queries[i].first].push_back(i);

  std::vector<std::vector<int64_t>> answers(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto table, tessera::query::TextSearch(snapshot, queries[i].second));
    ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
    if (table->num_rows() > 0) {
      const auto& ids =
          static_cast<const arrow::Int64Array&>(*table->GetColumnByName("id")->chunk(0));
      for (int64_t r = 0; r < ids.length(); ++r) answers[i].push_back(ids.Value(r));
    }
  }
  std::cout << "{\"types\": {";
  bool first_type = true;
  for (const auto& [type, members] : by_type) {
    std::vector<std::vector<double>> latencies(members.size());
    std::vector<double> passes;
    for (int repetition = 0; repetition < repetitions; ++repetition) {
      const auto pass_start = Clock::now();
      for (size_t m = 0; m < members.size(); ++m) {
        const auto start = Clock::now();
        ARROW_ASSIGN_OR_RAISE(auto table,
                              tessera::query::TextSearch(snapshot, queries[members[m]].second));
        latencies[m].push_back(Seconds(start));
      }
      passes.push_back(Seconds(pass_start));
    }
    std::vector<double> per_query;
    for (const auto& values : latencies) per_query.push_back(Median(values));
    std::vector<double> sorted = per_query;
    std::sort(sorted.begin(), sorted.end());
    const double p95 = sorted.empty() ? 0 : sorted[static_cast<size_t>(0.95 * (sorted.size() - 1))];
    std::cout << (first_type ? "" : ", ") << Quoted(type)
              << ": {\"latency_ms\": " << 1000 * Median(per_query) << ", \"p95_ms\": " << 1000 * p95
              << ", \"qps\": " << static_cast<double>(members.size()) / Median(passes)
              << ", \"top10\": [";
    for (size_t m = 0; m < members.size(); ++m) {
      std::cout << (m == 0 ? "[" : ", [");
      const auto& ids = answers[members[m]];
      for (size_t r = 0; r < ids.size(); ++r) std::cout << (r == 0 ? "" : ", ") << ids[r];
      std::cout << "]";
    }
    std::cout << "]}";
    first_type = false;
  }
  std::cout << "}}\n";
  return arrow::Status::OK();
}

int Usage() {
  std::cerr << "usage: fts_query build DATASET [--memory-limit BYTES]\n"
               "       fts_query query DATASET QUERIES [--repetitions R]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) return Usage();
  arrow::Status status;
  if (args[0] == "build") {
    std::string memory_limit;
    for (size_t i = 2; i + 1 < args.size(); i += 2) {
      if (args[i] == "--memory-limit") memory_limit = args[i + 1];
    }
    status = Build(args[1], memory_limit);
  } else if (args[0] == "query" && args.size() >= 3) {
    int repetitions = 5;
    for (size_t i = 3; i + 1 < args.size(); i += 2) {
      if (args[i] == "--repetitions") repetitions = std::max(1, std::stoi(args[i + 1]));
    }
    status = Query(args[1], args[2], repetitions);
  } else {
    return Usage();
  }
  if (!status.ok()) {
    std::cerr << "fts_query: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
