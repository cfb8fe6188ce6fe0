// ann_query: the tessera side of the ANN benchmark (bench/ann/run.sh).
//
// Opens a dataset, prepares one nearest-neighbour search (query::PreparedNearest) on a vector
// column, reads query vectors from an Arrow IPC file, and for every (refine factor, nprobes)
// point of a sweep runs the queries either
//   --mode single: one query at a time through Search() (run it with TESSERA_NUM_THREADS=1 and
//                  pinned to one CPU for single-thread QPS), or
//   --mode batch:  all queries in one SearchBatch() call (parallel over queries).
// Result row addresses are mapped to the dataset's `id` column (scanned once, with row
// addresses), and written as raw little-endian int64, queries × k (-1 where a query returned
// fewer than k rows), one file per point. Timings go to OUT_DIR/result.json. Recall is computed
// by the Python driver (bench/ann/ann_bench.py) against its exact ground truth.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/index/vector/openblas.h"
#include "tessera/query/nearest.h"
#include "tessera/query/prepared_nearest.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Peak resident set size of this process so far, in MiB.
double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct Args {
  std::string dataset;
  std::string queries;
  std::string column = "vector";
  std::string id_column = "id";
  std::string metric = "l2";
  std::string mode = "batch";
  std::string out_dir;
  int64_t k = 10;
  std::vector<int> nprobes = {1, 2, 4, 8, 16, 32};
  std::vector<int> refine = {1};
  int ef = 0;  // IVF_HNSW_*: candidates per probed partition's graph search (0: the default)
  int64_t max_queries = -1;          // use at most this many queries (all when < 0)
  double single_budget_s = 0;        // single mode: stop a point after this long (0: never) ...
  int64_t single_min_queries = 100;  // ... but only after this many queries
  int64_t warmup = 20;               // untimed queries before each point
  int64_t warmup_all = 200;          // untimed queries at the largest nprobes before the sweep
  double batch_min_s = 0.5;          // repeat a point (a whole pass) until this long, keep the best
  int batch_max_repeats = 20;
};

std::vector<int> ParseInts(const std::string& text) {
  std::vector<int> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

[[noreturn]] void Usage(const std::string& message) {
  std::cerr << "ann_query: " << message << "\n"
            << "usage: ann_query --dataset DIR --queries FILE.arrow --out-dir DIR\n"
            << "                 [--mode single|batch] [--nprobes 1,2,4] [--refine 1,10] [--ef 64] "
               "[--k 10]\n"
            << "                 [--column vector] [--id-column id] [--metric l2]\n"
            << "                 [--max-queries N] [--single-budget-s S] [--single-min-queries N]\n"
            << "                 [--warmup N] [--warmup-all N] [--batch-min-s S]\n"
            << "                 [--batch-max-repeats N]\n";
  std::exit(2);
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (i + 1 >= argc) Usage("missing value for " + key);
    const std::string value = argv[++i];
    if (key == "--dataset") {
      args.dataset = value;
    } else if (key == "--queries") {
      args.queries = value;
    } else if (key == "--column") {
      args.column = value;
    } else if (key == "--id-column") {
      args.id_column = value;
    } else if (key == "--metric") {
      args.metric = value;
    } else if (key == "--mode") {
      args.mode = value;
    } else if (key == "--out-dir") {
      args.out_dir = value;
    } else if (key == "--k") {
      args.k = std::stoll(value);
    } else if (key == "--nprobes") {
      args.nprobes = ParseInts(value);
    } else if (key == "--ef") {
      args.ef = std::stoi(value);
    } else if (key == "--refine") {
      args.refine = ParseInts(value);
    } else if (key == "--max-queries") {
      args.max_queries = std::stoll(value);
    } else if (key == "--single-budget-s") {
      args.single_budget_s = std::stod(value);
    } else if (key == "--single-min-queries") {
      args.single_min_queries = std::stoll(value);
    } else if (key == "--warmup") {
      args.warmup = std::stoll(value);
    } else if (key == "--warmup-all") {
      args.warmup_all = std::stoll(value);
    } else if (key == "--batch-min-s") {
      args.batch_min_s = std::stod(value);
    } else if (key == "--batch-max-repeats") {
      args.batch_max_repeats = std::stoi(value);
    } else {
      Usage("unknown option " + key);
    }
  }
  if (args.dataset.empty() || args.queries.empty() || args.out_dir.empty()) {
    Usage("--dataset, --queries and --out-dir are required");
  }
  if (args.mode != "single" && args.mode != "batch") Usage("--mode must be single or batch");
  if (args.nprobes.empty() || args.refine.empty()) Usage("empty --nprobes or --refine");
  return args;
}

template <typename T>
T OrDie(arrow::Result<T> result, const char* what) {
  if (!result.ok()) {
    std::cerr << "ann_query: " << what << ": " << result.status().ToString() << "\n";
    std::exit(1);
  }
  return std::move(result).ValueUnsafe();
}

void OrDie(const arrow::Status& status, const char* what) {
  if (!status.ok()) {
    std::cerr << "ann_query: " << what << ": " << status.ToString() << "\n";
    std::exit(1);
  }
}

// The query vectors of an Arrow IPC file, row-major; sets *dim.
arrow::Result<std::vector<float>> ReadQueries(const std::string& path, const std::string& column,
                                              int* dim) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::ipc::RecordBatchFileReader::Open(file));
  std::vector<float> out;
  *dim = 0;
  for (int b = 0; b < reader->num_record_batches(); ++b) {
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadRecordBatch(b));
    auto array = batch->GetColumnByName(column);
    if (array == nullptr) return arrow::Status::Invalid("no column ", column, " in ", path);
    auto list = std::dynamic_pointer_cast<arrow::FixedSizeListArray>(array);
    if (list == nullptr || list->value_type()->id() != arrow::Type::FLOAT) {
      return arrow::Status::Invalid("column ", column, " of ", path,
                                    " is not fixed_size_list<float32>");
    }
    if (list->null_count() != 0) return arrow::Status::Invalid("null query vector in ", path);
    *dim = list->list_type()->list_size();
    auto values = std::static_pointer_cast<arrow::FloatArray>(list->values());
    const float* data = values->raw_values() + list->value_offset(0);
    out.insert(out.end(), data, data + list->length() * (*dim));
  }
  return out;
}

// Row address -> id: one vector of ids per fragment, indexed by row offset.
class IdMap {
 public:
  arrow::Status Load(const tessera::dataset::Dataset& dataset, const std::string& id_column) {
    tessera::dataset::ScanOptions options;
    options.columns = {id_column};
    options.with_row_address = true;
    ARROW_ASSIGN_OR_RAISE(auto reader, dataset.Scan(options));
    std::shared_ptr<arrow::RecordBatch> batch;
    while (true) {
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (batch == nullptr) break;
      auto ids = std::dynamic_pointer_cast<arrow::Int64Array>(batch->column(0));
      auto addresses = std::dynamic_pointer_cast<arrow::UInt64Array>(
          batch->GetColumnByName(tessera::dataset::kRowAddressColumn));
      if (ids == nullptr || addresses == nullptr) {
        return arrow::Status::Invalid("expected int64 ", id_column, " and uint64 _rowaddr");
      }
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        const uint64_t address = addresses->Value(i);
        auto& fragment = fragments_[static_cast<uint32_t>(address >> 32)];
        const auto offset = static_cast<size_t>(address & 0xffffffffu);
        if (fragment.size() <= offset) fragment.resize(offset + 1, -1);
        fragment[offset] = ids->Value(i);
      }
    }
    return arrow::Status::OK();
  }

  int64_t Lookup(uint64_t address) const {
    auto it = fragments_.find(static_cast<uint32_t>(address >> 32));
    if (it == fragments_.end()) return -1;
    const auto offset = static_cast<size_t>(address & 0xffffffffu);
    return offset < it->second.size() ? it->second[offset] : -1;
  }

 private:
  std::unordered_map<uint32_t, std::vector<int64_t>> fragments_;
};

struct Point {
  int refine_factor;
  int nprobes;
  int64_t queries;
  double seconds;
  int repeats;
  std::string ids_file;
};

void WriteIds(const std::string& path,
              const std::vector<std::vector<tessera::index::ScoredRow>>& rows, int64_t k,
              const IdMap& ids) {
  std::vector<int64_t> out(rows.size() * static_cast<size_t>(k), -1);
  for (size_t q = 0; q < rows.size(); ++q) {
    const size_t n = std::min(rows[q].size(), static_cast<size_t>(k));
    for (size_t j = 0; j < n; ++j) {
      out[q * static_cast<size_t>(k) + j] = ids.Lookup(rows[q][j].row_address);
    }
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(out.data()),
             static_cast<std::streamsize>(out.size() * sizeof(int64_t)));
  if (!file) {
    std::cerr << "ann_query: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  tessera::index::vector::NameOpenBlasCoreType();  // as the CLI does (openblas.h)
  const Args args = ParseArgs(argc, argv);
  std::filesystem::create_directories(args.out_dir);

  auto start = Clock::now();
  auto dataset = OrDie(tessera::dataset::Dataset::Open(args.dataset), "open dataset");
  const double open_s = Seconds(start);

  start = Clock::now();
  IdMap ids;
  OrDie(ids.Load(*dataset, args.id_column), "scan ids");
  const double idmap_s = Seconds(start);
  const double idmap_rss = PeakRssMiB();

  int dim = 0;
  std::vector<float> queries = OrDie(ReadQueries(args.queries, args.column, &dim), "read queries");
  int64_t count = dim > 0 ? static_cast<int64_t>(queries.size()) / dim : 0;
  if (args.max_queries >= 0) count = std::min(count, args.max_queries);
  if (count == 0) Usage("no query vectors");

  tessera::query::NearestOptions options;
  options.column = args.column;
  options.k = args.k;
  options.nprobes = args.nprobes.front();
  options.refine_factor = args.refine.front();
  options.metric = OrDie(tessera::index::vector::ParseMetric(args.metric), "metric");
  start = Clock::now();
  auto prepared = OrDie(tessera::query::PreparedNearest::Make(*dataset, options), "prepare");
  const double prepare_s = Seconds(start);
  const double prepare_rss = PeakRssMiB();
  if (prepared->dim() != dim) Usage("query dimension differs from the column's");

  // Warm-up: the first queries at the largest nprobes and refine factor (page cache, lazily
  // loaded structures), then 20 more before each point at its own settings.
  if (args.warmup_all > 0) {
    tessera::query::NearestKnobs knobs;
    knobs.k = args.k;
    knobs.nprobes = *std::max_element(args.nprobes.begin(), args.nprobes.end());
    knobs.refine_factor = *std::max_element(args.refine.begin(), args.refine.end());
    knobs.ef = args.ef;
    const int64_t n = std::min(args.warmup_all, count);
    if (args.mode == "single") {
      for (int64_t i = 0; i < n; ++i)
        OrDie(prepared->Search(queries.data() + i * dim, knobs), "warmup");
    } else {
      OrDie(prepared->SearchBatch(queries.data(), n, knobs), "warmup");
    }
  }

  std::vector<Point> points;
  for (const int refine : args.refine) {
    for (const int nprobes : args.nprobes) {
      tessera::query::NearestKnobs knobs;
      knobs.k = args.k;
      knobs.nprobes = nprobes;
      knobs.refine_factor = refine;
      knobs.ef = args.ef;
      Point point{refine, nprobes, 0, 0, 1, ""};
      std::vector<std::vector<tessera::index::ScoredRow>> results;
      if (args.mode == "single") {
        for (int64_t i = 0; i < std::min(args.warmup, count); ++i) {
          OrDie(prepared->Search(queries.data() + i * dim, knobs), "warmup");
        }
        // A pass over all queries that took under --batch-min-s is repeated (up to
        // --batch-max-repeats passes) and the best pass kept; a pass stopped by the budget is not.
        double total = 0;
        int passes = 0;
        while (passes < std::max(1, args.batch_max_repeats)) {
          std::vector<std::vector<tessera::index::ScoredRow>> pass;
          pass.reserve(static_cast<size_t>(count));
          start = Clock::now();
          for (int64_t i = 0; i < count; ++i) {
            pass.push_back(OrDie(prepared->Search(queries.data() + i * dim, knobs), "search"));
            if (args.single_budget_s > 0 && i + 1 >= args.single_min_queries &&
                Seconds(start) > args.single_budget_s) {
              break;
            }
          }
          const double seconds = Seconds(start);
          point.seconds = passes == 0 ? seconds : std::min(point.seconds, seconds);
          total += seconds;
          ++passes;
          const bool complete = static_cast<int64_t>(pass.size()) == count;
          if (results.empty()) results = std::move(pass);
          if (!complete || total >= args.batch_min_s) break;
        }
        point.repeats = passes;
        point.queries = static_cast<int64_t>(results.size());
      } else {
        if (args.warmup > 0) {
          OrDie(prepared->SearchBatch(queries.data(), std::min(args.warmup, count), knobs),
                "warmup");
        }
        double best = 0;
        double total = 0;
        int repeats = 0;
        while (repeats < std::max(1, args.batch_max_repeats) &&
               (repeats == 0 || total < args.batch_min_s)) {
          start = Clock::now();
          auto batch = OrDie(prepared->SearchBatch(queries.data(), count, knobs), "search batch");
          const double seconds = Seconds(start);
          best = repeats == 0 ? seconds : std::min(best, seconds);
          total += seconds;
          ++repeats;
          if (results.empty()) results = std::move(batch);
        }
        point.seconds = best;
        point.repeats = repeats;
        point.queries = count;
      }
      point.ids_file =
          args.mode + "_rf" + std::to_string(refine) + "_np" + std::to_string(nprobes) + ".i64";
      WriteIds((std::filesystem::path(args.out_dir) / point.ids_file).string(), results, args.k,
               ids);
      std::cerr << "ann_query: " << args.mode << " refine " << refine << " nprobes " << nprobes
                << ": " << point.queries << " queries in " << point.seconds << " s\n";
      points.push_back(point);
    }
  }

  std::ofstream json((std::filesystem::path(args.out_dir) / "result.json").string(),
                     std::ios::trunc);
  json << "{\"mode\": \"" << args.mode << "\", \"k\": " << args.k << ", \"dim\": " << dim
       << ", \"open_s\": " << open_s << ", \"idmap_s\": " << idmap_s
       << ", \"prepare_s\": " << prepare_s << ", \"peak_rss_mib_after_idmap\": " << idmap_rss
       << ", \"peak_rss_mib_after_prepare\": " << prepare_rss
       << ", \"peak_rss_mib\": " << PeakRssMiB() << ", \"points\": [";
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    json << (i ? ", " : "") << "{\"refine_factor\": " << p.refine_factor
         << ", \"nprobes\": " << p.nprobes << ", \"queries\": " << p.queries
         << ", \"seconds\": " << p.seconds << ", \"repeats\": " << p.repeats << ", \"ids_file\": \""
         << p.ids_file << "\"}";
  }
  json << "]}\n";
  if (!json) {
    std::cerr << "ann_query: cannot write result.json\n";
    return 1;
  }
  return 0;
}
