// scalar: every scalar index family against the unindexed read and a full scan (issue
// "Scalar families ..."; docs/benchmarks.md, "Scalar index families").
//
// The dataset (created at --dataset DIR, or reused when it holds --rows rows), fragments of
// 1,048,576 rows:
//   id       int64   0..N-1, ascending (clustered: zone maps narrow it)
//   key      int64   a random permutation of 0..N-1 (spread over every fragment)
//   bucket   int64   key % 10000: `bucket < B` keeps B / 10000 of the rows, spread
//   cluster  int64   id / 500: each value in 500 consecutive rows (one zone)
//   tags     list<int64>  [bucket, 100000 + key % 7]
//   text     string  three words and the marker "zq" + bucket's four digits as letters a..j
//                    ("zqaaab" is bucket 1): `contains(text, 'zqaaab')` keeps 0.01 %,
//                    'zqaa' 1 %, 'zqa' 10 %
// Each family's index is created on version 1 (timed: the build), measured, and dropped. For
// each selectivity (0.01 %, 1 %, 10 %) it times, warm, medians of --repetitions runs after one
// warm-up: the count and the scan through the index, the same without it (version 1, the filter
// evaluated on every row) and a full scan; and it reports the rows the read decoded from data
// files (the candidates it rechecked, or every row when the planner scans) and what explain says.
#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/index_family.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/explain.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"

namespace {

using tessera::dataset::Dataset;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kRowsPerFragment = 1 << 20;
constexpr int64_t kBatchRows = 65536;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

std::string Marker(int64_t bucket) {
  std::string marker = "zq";
  const std::string digits = std::to_string(10000 + bucket).substr(1);  // four digits
  for (char digit : digits) marker += static_cast<char>('a' + (digit - '0'));
  return marker;
}

// Batches of the dataset's rows, generated on the fly.
class RowSource : public arrow::RecordBatchReader {
 public:
  explicit RowSource(int64_t rows) : rows_(rows), permutation_(static_cast<size_t>(rows)) {
    std::iota(permutation_.begin(), permutation_.end(), 0);
    std::shuffle(permutation_.begin(), permutation_.end(), random_);
  }
  static std::shared_ptr<arrow::Schema> Schema() {
    return arrow::schema(
        {arrow::field("id", arrow::int64()), arrow::field("key", arrow::int64()),
         arrow::field("bucket", arrow::int64()), arrow::field("cluster", arrow::int64()),
         arrow::field("tags", arrow::list(arrow::int64())), arrow::field("text", arrow::utf8())});
  }
  std::shared_ptr<arrow::Schema> schema() const override { return Schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (next_ >= rows_) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    static const char* const kWords[] = {"river",  "stone", "vector", "engine", "garden",
                                         "market", "cloud", "paper",  "light",  "query"};
    const int64_t count = std::min(kBatchRows, rows_ - next_);
    arrow::Int64Builder id, key, bucket, cluster;
    arrow::ListBuilder tags(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
    auto& tag_values = static_cast<arrow::Int64Builder&>(*tags.value_builder());
    arrow::StringBuilder text;
    for (int64_t i = next_; i < next_ + count; ++i) {
      const int64_t k = permutation_[static_cast<size_t>(i)];
      ARROW_RETURN_NOT_OK(id.Append(i));
      ARROW_RETURN_NOT_OK(key.Append(k));
      ARROW_RETURN_NOT_OK(bucket.Append(k % 10000));
      ARROW_RETURN_NOT_OK(cluster.Append(i / 500));
      ARROW_RETURN_NOT_OK(tags.Append());
      ARROW_RETURN_NOT_OK(tag_values.Append(k % 10000));
      ARROW_RETURN_NOT_OK(tag_values.Append(100000 + k % 7));
      std::string value;
      for (int w = 0; w < 3; ++w) value += std::string(kWords[random_() % 10]) + " ";
      ARROW_RETURN_NOT_OK(text.Append(value + Marker(k % 10000)));
    }
    std::vector<std::shared_ptr<arrow::Array>> columns(6);
    ARROW_RETURN_NOT_OK(id.Finish(&columns[0]));
    ARROW_RETURN_NOT_OK(key.Finish(&columns[1]));
    ARROW_RETURN_NOT_OK(bucket.Finish(&columns[2]));
    ARROW_RETURN_NOT_OK(cluster.Finish(&columns[3]));
    ARROW_RETURN_NOT_OK(tags.Finish(&columns[4]));
    ARROW_RETURN_NOT_OK(text.Finish(&columns[5]));
    *batch = arrow::RecordBatch::Make(Schema(), count, std::move(columns));
    next_ += count;
    return arrow::Status::OK();
  }

 private:
  int64_t rows_;
  int64_t next_ = 0;
  std::mt19937_64 random_{42};
  std::vector<int64_t> permutation_;
};

// One family's index and the predicates it answers at each selectivity.
struct Case {
  std::string family;
  std::string column;
  tessera::index::Params params;
  std::function<std::string(double selectivity, int64_t rows)> predicate;
};

std::string InList(int64_t first, int64_t count) {
  std::string list;
  for (int64_t v = first; v < first + count; ++v)
    list += (list.empty() ? "" : ", ") + std::to_string(v);
  return "(" + list + ")";
}

std::string TagList(int64_t count) {
  std::string list;
  for (int64_t v = 0; v < count; ++v) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return "[" + list + "]";
}

std::vector<Case> Cases() {
  const auto buckets = [](double selectivity) {
    return std::max<int64_t>(1, static_cast<int64_t>(selectivity * 10000 + 0.5));
  };
  return {
      {"BTREE",
       "key",
       {},
       [](double s, int64_t rows) {
         return "key < " + std::to_string(static_cast<int64_t>(s * static_cast<double>(rows)));
       }},
      {"BITMAP",
       "bucket",
       {{"max_cardinality", "10000"}},
       [buckets](double s, int64_t) { return "bucket < " + std::to_string(buckets(s)); }},
      {"ZONEMAP",
       "id",
       {},
       [](double s, int64_t rows) {
         return "id < " + std::to_string(static_cast<int64_t>(s * static_cast<double>(rows)));
       }},
      {"ZONEMAP",
       "key",
       {},  // spread values: zone maps cannot narrow, the planner must scan
       [](double s, int64_t rows) {
         return "key < " + std::to_string(static_cast<int64_t>(s * static_cast<double>(rows)));
       }},
      {"BLOOMFILTER",
       "cluster",
       {},
       [](double s, int64_t rows) {
         const int64_t values =
             std::max<int64_t>(1, static_cast<int64_t>(s * static_cast<double>(rows) / 500));
         return "cluster IN " + InList(values * 3, values);
       }},
      {"LABEL_LIST",
       "tags",
       {},
       [buckets](double s, int64_t) { return "array_has_any(tags, " + TagList(buckets(s)) + ")"; }},
      {"NGRAM",
       "text",
       {},
       [](double s, int64_t) {
         const std::string marker = s < 0.001 ? "zqaaab" : s < 0.05 ? "zqab" : "zqb";
         return "contains(text, '" + marker + "')";
       }},
      {"NGRAM",
       "text",
       {},
       [](double s, int64_t) {
         const std::string marker = s < 0.001 ? "zqaaab" : s < 0.05 ? "zqab" : "zqb";
         return "text LIKE '%" + marker + "%'";
       }},
  };
}

struct Timing {
  double seconds = 0;
  uint64_t rows = 0;
  uint64_t decoded = 0;  // rows decoded from data files by the last run
};

template <typename Run>
arrow::Result<Timing> Measure(int repetitions, const Run& run) {
  Timing timing;
  ARROW_ASSIGN_OR_RAISE(timing.rows, run());  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    tessera::dataset::GlobalReadStatistics().Reset();
    const auto start = Clock::now();
    ARROW_ASSIGN_OR_RAISE(uint64_t rows, run());
    seconds.push_back(Seconds(start));
    if (rows != timing.rows) return arrow::Status::Invalid("row counts differ between runs");
    const auto& statistics = tessera::dataset::GlobalReadStatistics();
    timing.decoded = statistics.rows_scanned + statistics.rows_taken;
  }
  timing.seconds = Median(seconds);
  return timing;
}

arrow::Result<uint64_t> ScanRows(const std::shared_ptr<const tessera::query::Snapshot>& snapshot,
                                 const std::string& filter, bool indexed) {
  tessera::dataset::ScanOptions options;
  options.filter = filter;
  std::shared_ptr<arrow::RecordBatchReader> reader;
  if (indexed) {
    ARROW_ASSIGN_OR_RAISE(reader, tessera::query::Read(snapshot, options));
  } else {
    ARROW_ASSIGN_OR_RAISE(reader, snapshot->dataset().Scan(options));
  }
  uint64_t rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) return rows;
    rows += static_cast<uint64_t>(batch->num_rows());
  }
}

std::string Fixed(double value, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << value;
  return out.str();
}

std::string Milliseconds(double seconds) { return Fixed(seconds * 1000, seconds < 0.01 ? 2 : 1); }

std::string Ratio(double a, double b) {
  std::ostringstream out;
  out.precision(2);
  out << std::fixed << (b > 0 ? a / b : 0) << "×";
  return out.str();
}

// The first line of explain that names an index or says scan, shortened.
std::string ExplainSummary(const std::string& explain) {
  std::string first = explain.substr(0, explain.find('\n'));
  const std::string prefix = "explain: ";
  if (first.rfind(prefix, 0) == 0) first = first.substr(prefix.size());
  const size_t colon = first.find(": ");
  if (colon != std::string::npos && first.rfind("fragment", 0) == 0)
    first = first.substr(colon + 2);
  if (first.size() > 70) first = first.substr(0, 67) + "...";
  return first;
}

arrow::Status Run(const std::string& path, int64_t rows, int repetitions,
                  const std::vector<std::string>& only) {
  std::shared_ptr<Dataset> base;
  auto opened = Dataset::Open(path, 1);
  if (opened.ok() && (*opened)->CountRows() == static_cast<uint64_t>(rows)) {
    base = *opened;
  } else {
    std::filesystem::remove_all(path);
    const auto start = Clock::now();
    tessera::dataset::WriteOptions options;
    options.max_rows_per_file = kRowsPerFragment;
    ARROW_ASSIGN_OR_RAISE(base, Dataset::Create(path, std::make_shared<RowSource>(rows), options));
    std::cerr << "created " << rows << " rows in " << Seconds(start) << " s\n";
  }
  ARROW_ASSIGN_OR_RAISE(auto latest, base->Latest());
  for (const auto& definition : latest->manifest().indexes()) {
    ARROW_ASSIGN_OR_RAISE(latest, tessera::index::DropIndex(*latest, definition.name()));
  }
  const auto plain = tessera::query::Snapshot::Make(base);
  ARROW_ASSIGN_OR_RAISE(Timing full,
                        Measure(repetitions, [&] { return ScanRows(plain, "", false); }));

  std::cout << "# Scalar index families: " << rows << " rows, " << repetitions
            << " repetitions (medians, warm)\n\n"
            << "Full scan: " << Milliseconds(full.seconds) << " ms.\n\n"
            << "| family | column | build s | index MiB | predicate | rows | count ms (no index) | "
               "scan ms (no index) | scan / full scan | rows decoded | plan |\n"
            << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Case& c : Cases()) {
    if (tessera::index::FindFamily(c.family) == nullptr) {
      std::cerr << "skipping " << c.family << ": not registered\n";
      continue;
    }
    if (!only.empty() && std::find(only.begin(), only.end(), c.family) == only.end()) continue;
    tessera::index::IndexSpec spec{"bench_idx", c.column, c.family, c.params};
    const auto build_start = Clock::now();
    ARROW_ASSIGN_OR_RAISE(auto indexed, tessera::index::CreateIndex(*latest, spec));
    const double build_seconds = Seconds(build_start);
    uint64_t index_bytes = 0;
    for (const auto& segment : indexed->manifest().indexes(0).segments()) {
      index_bytes += segment.size_bytes();
    }
    const auto snapshot = tessera::query::Snapshot::Make(indexed);
    for (double selectivity : {0.0001, 0.01, 0.1}) {
      const std::string filter = c.predicate(selectivity, rows);
      ARROW_ASSIGN_OR_RAISE(Timing count, Measure(repetitions, [&] {
                              return tessera::query::Count(*snapshot, filter);
                            }));
      ARROW_ASSIGN_OR_RAISE(Timing count_plain, Measure(repetitions, [&] {
                              return plain->dataset().CountRows(filter);
                            }));
      ARROW_ASSIGN_OR_RAISE(Timing scan,
                            Measure(repetitions, [&] { return ScanRows(snapshot, filter, true); }));
      ARROW_ASSIGN_OR_RAISE(Timing scan_plain,
                            Measure(repetitions, [&] { return ScanRows(plain, filter, false); }));
      if (count.rows != count_plain.rows || scan.rows != scan_plain.rows) {
        return arrow::Status::Invalid(c.family, " answers '", filter, "' with ", scan.rows,
                                      " rows, the scan with ", scan_plain.rows);
      }
      tessera::query::Explain explain;
      ARROW_RETURN_NOT_OK(tessera::query::Count(*snapshot, filter, &explain).status());
      std::string shown = filter.size() > 48 ? filter.substr(0, 45) + "..." : filter;
      std::cout << "| " << c.family << " | " << c.column << " | "
                << (selectivity == 0.0001 ? Fixed(build_seconds, 2) : "") << " | "
                << (selectivity == 0.0001 ? Fixed(static_cast<double>(index_bytes) / (1 << 20), 1)
                                          : "")
                << " | `" << shown << "` | " << scan.rows << " | " << Milliseconds(count.seconds)
                << " (" << Milliseconds(count_plain.seconds) << ") | " << Milliseconds(scan.seconds)
                << " (" << Milliseconds(scan_plain.seconds) << ") | "
                << Ratio(scan.seconds, full.seconds) << " | " << scan.decoded << " | "
                << ExplainSummary(explain.ToString()) << " |\n"
                << std::flush;
    }
    ARROW_ASSIGN_OR_RAISE(latest, tessera::index::DropIndex(*indexed, "bench_idx"));
  }
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "bench/.results/scalar";
  int64_t rows = 5'000'000;
  int repetitions = 5;
  std::vector<std::string> only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dataset") {
      path = argv[i + 1];
    } else if (flag == "--rows") {
      rows = std::atoll(argv[i + 1]);
    } else if (flag == "--repetitions") {
      repetitions = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "--family") {
      only.push_back(argv[i + 1]);
    } else {
      std::cerr << "usage: scalar [--dataset DIR] [--rows N] [--repetitions R] [--family F]...\n";
      return 2;
    }
  }
  const arrow::Status status = Run(path + "/rows-" + std::to_string(rows), rows, repetitions, only);
  if (!status.ok()) {
    std::cerr << "error: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
