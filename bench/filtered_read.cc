// filtered_read: filtered scan and count through a BTREE against the same reads without an index
// and against a full scan (issue 10's acceptance benchmark; docs/benchmarks.md, "Filtered reads
// through a BTREE").
//
// The dataset (created at --dataset DIR, or reused when it is there with the same row count):
//   id    int64   0..N-1
//   key   int64   a random permutation of 0..N-1, so `key < T` keeps exactly T rows, spread
//                 uniformly over every fragment and batch (the index's worst case for locality)
//   value double  uniform in [0, 1)
//   tag   string  "tag-" and five digits
// Version 1 holds the rows; version 2 adds a BTREE `key_idx` on `key`. Reads "without index"
// open version 1, which has the same rows and no index; reads "with index" open the latest.
//
// Every (operation, selectivity, mode) runs in its own child process (this program re-executed
// with --child), so its peak RSS is its own. A child runs one untimed warm-up and then
// --repetitions timed ones, and checks the row count of each (exactly T). Modes:
//   warm:  the dataset is opened once, before the warm-up (a long-lived process);
//   fresh: each repetition opens the dataset anew, inside the timing (a CLI command).
// Data files stay in the page cache across children; nothing here measures the disk.
//
// Memory, per child: peak RSS (VmHWM, which counts the pages of mapped data files the read
// touched), peak anonymous RSS (/proc/self/statm resident − shared, sampled every 2 ms: the
// heap, without mapped files), and the peak bytes of Arrow's default memory pool.
#include <arrow/api.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"

namespace {

using tessera::dataset::Dataset;

// ---------------------------------------------------------------------------------------------
// The library calls under test. They are all here so that a new read API replaces only these:
// a Snapshot type for the handle, one function to open it, and one per read. Each read
// consumes its whole result. A read that returns NotImplemented is left out of the results
// (CountThroughPlanner exists only before issue 10). With a query::Snapshot and one streaming
// read: Snapshot becomes that type and OpenSnapshot opens it (warm mode keeps one for all
// repetitions); ScanWithIndex and CountWithIndex call the index-aware read and count;
// ScanWithoutIndex and CountWithoutIndex may call the same on version 1, which has no index.
// ---------------------------------------------------------------------------------------------

// What a read runs against: one opened version of the dataset.
using Snapshot = std::shared_ptr<const tessera::query::Snapshot>;

// A scan hands every batch of its result to this, in order.
using BatchConsumer = std::function<arrow::Status(const arrow::RecordBatch&)>;

arrow::Result<Snapshot> OpenSnapshot(const std::string& uri, uint64_t version) {
  return tessera::query::Snapshot::Open(uri, version);
}

arrow::Status ConsumeAll(arrow::RecordBatchReader& reader, const BatchConsumer& consume) {
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (batch == nullptr) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(consume(*batch));
  }
}

// Filtered scan, index-aware: query::Read, streamed batch by batch.
arrow::Status ScanWithIndex(const Snapshot& snapshot, const std::string& filter,
                            const BatchConsumer& consume) {
  tessera::dataset::ScanOptions options;
  options.filter = filter;
  ARROW_ASSIGN_OR_RAISE(auto reader, tessera::query::Read(snapshot, options));
  return ConsumeAll(*reader, consume);
}

// The unindexed streaming scan: Dataset::Scan, batch by batch (with `filter`, or every row for
// the full scan).
arrow::Status ScanWithoutIndex(const Snapshot& snapshot, const std::string& filter,
                               const BatchConsumer& consume) {
  tessera::dataset::ScanOptions options;
  options.filter = filter;
  ARROW_ASSIGN_OR_RAISE(auto reader, snapshot->dataset().Scan(options));
  return ConsumeAll(*reader, consume);
}

// Filtered count as `tessera count --where` does it: query::Count, through the index.
arrow::Result<uint64_t> CountWithIndex(const Snapshot& snapshot, const std::string& filter) {
  return tessera::query::Count(*snapshot, filter);
}

// The unindexed count: Dataset::CountRows(filter) evaluates the filter on every row.
arrow::Result<uint64_t> CountWithoutIndex(const Snapshot& snapshot, const std::string& filter) {
  return snapshot->dataset().CountRows(filter);
}

// Before issue 10 only (the planner's matching rows counted, query::FindMatchingRows); after it
// CountWithIndex is that, so this operation drops out of the results.
arrow::Result<uint64_t> CountThroughPlanner(const Snapshot&, const std::string&) {
  return arrow::Status::NotImplemented("");
}

// ---------------------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr const char* kIndexName = "key_idx";
constexpr uint64_t kRowsPerBatch = 65536;

using ScanFunction = arrow::Status (*)(const Snapshot&, const std::string&, const BatchConsumer&);
using CountFunction = arrow::Result<uint64_t> (*)(const Snapshot&, const std::string&);

// Reads every byte of every buffer of `batch` (validity, offsets, values, string data), as a
// consumer that uses the values does: a scan that returns slices of mapped files without
// copying otherwise never touches them.
uint64_t ReadEveryByte(const arrow::ArrayData& data) {
  uint64_t sum = 0;
  for (const auto& buffer : data.buffers) {
    if (buffer == nullptr) continue;
    const uint8_t* bytes = buffer->data();
    const auto size = static_cast<size_t>(buffer->size());
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
      uint64_t word;
      std::memcpy(&word, bytes + i, sizeof(word));
      sum += word;
    }
    for (; i < size; ++i) sum += bytes[i];
  }
  for (const auto& child : data.child_data) sum += ReadEveryByte(*child);
  return sum;
}

// Runs `scan` and returns the rows it produced; with `read_values`, the consumer also reads
// every byte of each batch.
arrow::Result<uint64_t> CountScanned(ScanFunction scan, const Snapshot& snapshot,
                                     const std::string& filter, bool read_values) {
  uint64_t rows = 0;
  uint64_t checksum = 0;
  ARROW_RETURN_NOT_OK(scan(snapshot, filter, [&](const arrow::RecordBatch& batch) {
    rows += static_cast<uint64_t>(batch.num_rows());
    if (read_values) {
      for (const auto& column : batch.column_data()) checksum += ReadEveryByte(*column);
    }
    return arrow::Status::OK();
  }));
  volatile uint64_t sink = checksum;  // keeps the reads
  (void)sink;
  return rows;
}

// The operations, in table order. `filtered`: runs per selectivity (else once, no filter).
struct Operation {
  const char* name;
  const char* label;
  bool indexed;  // opens the indexed version (the latest) rather than version 1
  bool filtered;
  std::function<arrow::Result<uint64_t>(const Snapshot&, const std::string&)> read;
};

std::function<arrow::Result<uint64_t>(const Snapshot&, const std::string&)> Scanning(
    ScanFunction scan, bool read_values) {
  return [scan, read_values](const Snapshot& snapshot, const std::string& filter) {
    return CountScanned(scan, snapshot, filter, read_values);
  };
}

const std::vector<Operation>& Operations() {
  static const std::vector<Operation> operations = {
      {"scan_index", "filtered scan, with index", true, true, Scanning(ScanWithIndex, false)},
      {"scan_noindex", "filtered scan, without index", false, true,
       Scanning(ScanWithoutIndex, false)},
      {"count_index", "filtered count, with index", true, true, CountFunction{CountWithIndex}},
      {"count_noindex", "filtered count, without index", false, true,
       CountFunction{CountWithoutIndex}},
      {"count_planner", "count through the planner (FindMatchingRows)", true, true,
       CountFunction{CountThroughPlanner}},
      {"full_scan", "full scan, no filter", true, false, Scanning(ScanWithoutIndex, false)},
      {"full_scan_read", "full scan, no filter, consumer reads every byte", true, false,
       Scanning(ScanWithoutIndex, true)},
  };
  return operations;
}

const Operation* FindOperation(const std::string& name) {
  for (const auto& operation : Operations()) {
    if (name == operation.name) return &operation;
  }
  return nullptr;
}

struct Args {
  std::string dataset;
  std::string out;
  uint64_t rows = 5000000;
  int repetitions = 5;
  std::vector<double> selectivities = {0.0001, 0.01, 0.1, 0.5};  // fractions
  std::vector<std::string> modes = {"warm", "fresh"};
  std::vector<std::string> operations;  // all when empty
  std::string label;                    // free text recorded in the JSON (e.g. a commit)
  // --child: run one measurement and write it to --child-out.
  std::string child_operation;
  std::string child_mode;
  std::string child_out;
  uint64_t child_threshold = 0;
  uint64_t child_expected = 0;
  uint64_t indexed_version = 0;
};

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

[[noreturn]] void Usage(const std::string& message) {
  std::cerr << "filtered_read: " << message << "\n"
            << "usage: filtered_read --dataset DIR --out FILE.json [--rows N] [--repetitions R]\n"
            << "                     [--selectivities 0.0001,0.01,0.1,0.5] [--modes warm,fresh]\n"
            << "                     [--operations scan_index,...] [--label TEXT]\n";
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
    } else if (key == "--out") {
      args.out = value;
    } else if (key == "--rows") {
      args.rows = std::stoull(value);
    } else if (key == "--repetitions") {
      args.repetitions = std::stoi(value);
    } else if (key == "--selectivities") {
      args.selectivities.clear();
      for (const auto& item : Split(value)) args.selectivities.push_back(std::stod(item));
    } else if (key == "--modes") {
      args.modes = Split(value);
    } else if (key == "--operations") {
      args.operations = Split(value);
    } else if (key == "--label") {
      args.label = value;
    } else if (key == "--child") {
      args.child_operation = value;
    } else if (key == "--child-mode") {
      args.child_mode = value;
    } else if (key == "--child-out") {
      args.child_out = value;
    } else if (key == "--child-threshold") {
      args.child_threshold = std::stoull(value);
    } else if (key == "--child-expected") {
      args.child_expected = std::stoull(value);
    } else if (key == "--indexed-version") {
      args.indexed_version = std::stoull(value);
    } else {
      Usage("unknown option " + key);
    }
  }
  if (args.dataset.empty()) Usage("--dataset is required");
  if (args.child_operation.empty() && args.out.empty()) Usage("--out is required");
  if (args.rows == 0 || args.repetitions < 1) Usage("--rows and --repetitions must be positive");
  for (const auto& mode : args.modes) {
    if (mode != "warm" && mode != "fresh") Usage("--modes takes warm and fresh");
  }
  for (const auto& name : args.operations) {
    if (FindOperation(name) == nullptr) Usage("unknown operation " + name);
  }
  for (const double selectivity : args.selectivities) {
    if (!(selectivity > 0 && selectivity <= 1)) Usage("selectivities are fractions in (0, 1]");
  }
  return args;
}

template <typename T>
T OrDie(arrow::Result<T> result, const std::string& what) {
  if (!result.ok()) {
    std::cerr << "filtered_read: " << what << ": " << result.status().ToString() << "\n";
    std::exit(1);
  }
  return std::move(result).ValueUnsafe();
}

// --- the dataset ---

// Generates the rows batch by batch, so that creating the dataset holds one batch of every
// column at a time (plus the 8 bytes a row of the key permutation).
class RowGenerator : public arrow::RecordBatchReader {
 public:
  explicit RowGenerator(uint64_t rows) : keys_(rows), random_(20261201) {
    std::iota(keys_.begin(), keys_.end(), int64_t{0});
    std::shuffle(keys_.begin(), keys_.end(), random_);
    schema_ = arrow::schema({arrow::field("id", arrow::int64(), false),
                             arrow::field("key", arrow::int64(), false),
                             arrow::field("value", arrow::float64(), false),
                             arrow::field("tag", arrow::utf8(), false)});
  }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    const uint64_t total = keys_.size();
    if (next_ >= total) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    const uint64_t count = std::min(kRowsPerBatch, total - next_);
    arrow::Int64Builder ids;
    arrow::Int64Builder keys;
    arrow::DoubleBuilder values;
    arrow::StringBuilder tags;
    ARROW_RETURN_NOT_OK(ids.Reserve(static_cast<int64_t>(count)));
    ARROW_RETURN_NOT_OK(keys.Reserve(static_cast<int64_t>(count)));
    ARROW_RETURN_NOT_OK(values.Reserve(static_cast<int64_t>(count)));
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    char tag[16];
    for (uint64_t i = next_; i < next_ + count; ++i) {
      ids.UnsafeAppend(static_cast<int64_t>(i));
      keys.UnsafeAppend(keys_[i]);
      values.UnsafeAppend(uniform(random_));
      std::snprintf(tag, sizeof(tag), "tag-%05u", static_cast<unsigned>(random_() % 100000));
      ARROW_RETURN_NOT_OK(tags.Append(tag));
    }
    next_ += count;
    std::vector<std::shared_ptr<arrow::Array>> columns(4);
    ARROW_RETURN_NOT_OK(ids.Finish(&columns[0]));
    ARROW_RETURN_NOT_OK(keys.Finish(&columns[1]));
    ARROW_RETURN_NOT_OK(values.Finish(&columns[2]));
    ARROW_RETURN_NOT_OK(tags.Finish(&columns[3]));
    *batch = arrow::RecordBatch::Make(schema_, static_cast<int64_t>(count), std::move(columns));
    return arrow::Status::OK();
  }

 private:
  std::vector<int64_t> keys_;
  std::mt19937_64 random_;
  std::shared_ptr<arrow::Schema> schema_;
  uint64_t next_ = 0;
};

struct Prepared {
  uint64_t indexed_version = 0;
  bool created = false;
  double create_s = 0;
  double index_s = 0;
};

bool HasKeyIndex(const Dataset& dataset) {
  for (const auto& summary : tessera::index::ListIndexes(dataset)) {
    if (summary.column == "key" && summary.family == "BTREE" && summary.unindexed_rows == 0) {
      return true;
    }
  }
  return false;
}

// Creates the dataset (version 1) and its BTREE (version 2), or reuses what is at `uri`:
// version 1 must hold `rows` rows with a `key` column; the index is built when missing.
Prepared PrepareDataset(const std::string& uri, uint64_t rows) {
  Prepared prepared;
  std::shared_ptr<Dataset> latest;
  if (std::filesystem::exists(uri)) {
    auto first = OrDie(Dataset::Open(uri, 1), "open version 1 of " + uri);
    if (first->CountRows() != rows || first->schema()->GetFieldIndex("key") < 0) {
      std::cerr << "filtered_read: " << uri << " holds " << first->CountRows()
                << " rows at version 1, not " << rows
                << " with a `key` column: remove it or pass another --dataset\n";
      std::exit(1);
    }
    latest = OrDie(first->Latest(), "open the latest version of " + uri);
    std::cerr << "filtered_read: reusing " << uri << " (version " << latest->version() << ")\n";
  } else {
    std::cerr << "filtered_read: creating " << rows << " rows at " << uri << "\n";
    const auto start = Clock::now();
    latest = OrDie(Dataset::Create(uri, std::make_shared<RowGenerator>(rows)), "create " + uri);
    prepared.create_s = Seconds(start);
    prepared.created = true;
  }
  if (!HasKeyIndex(*latest)) {
    std::cerr << "filtered_read: building BTREE " << kIndexName << " on key\n";
    tessera::index::IndexSpec spec{kIndexName, "key", "BTREE", {}};
    const auto start = Clock::now();
    latest = OrDie(tessera::index::CreateIndex(*latest, spec), "create index");
    prepared.index_s = Seconds(start);
  }
  prepared.indexed_version = latest->version();
  return prepared;
}

// --- one measurement, in a child process ---

// Peak anonymous resident memory, sampled from /proc/self/statm while the child runs.
class AnonymousPeak {
 public:
  AnonymousPeak() : page_(static_cast<uint64_t>(sysconf(_SC_PAGESIZE))) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        Sample();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~AnonymousPeak() { Stop(); }

  void Stop() {
    if (thread_.joinable()) {
      stop_.store(true);
      thread_.join();
      Sample();
    }
  }
  uint64_t peak_bytes() const { return peak_.load(); }
  uint64_t Current() const {
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0, shared = 0;
    statm >> size >> resident >> shared;
    return resident > shared ? (resident - shared) * page_ : 0;
  }

 private:
  void Sample() {
    const uint64_t now = Current();
    uint64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }

  uint64_t page_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> peak_{0};
  std::thread thread_;
};

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// Peak resident set of this process (VmHWM). Not getrusage's ru_maxrss: posix_spawn shares the
// parent's address space until exec, and Linux carries that space's peak into the child's.
double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  return 0;
}

std::string FilterFor(uint64_t threshold) { return "key < " + std::to_string(threshold); }

int RunChild(const Args& args) {
  const Operation* operation = FindOperation(args.child_operation);
  if (operation == nullptr) Usage("unknown operation " + args.child_operation);
  const uint64_t version = operation->indexed ? args.indexed_version : 1;
  const std::string filter = operation->filtered ? FilterFor(args.child_threshold) : "";
  const bool fresh = args.child_mode == "fresh";
  const double start_rss = PeakRssMiB();
  AnonymousPeak anonymous;
  const uint64_t start_anonymous = anonymous.Current();

  Snapshot opened;
  if (!fresh) opened = OrDie(OpenSnapshot(args.dataset, version), "open " + args.dataset);
  std::vector<double> seconds;
  for (int repetition = 0; repetition <= args.repetitions; ++repetition) {  // 0: warm-up
    const auto start = Clock::now();
    Snapshot snapshot =
        fresh ? OrDie(OpenSnapshot(args.dataset, version), "open " + args.dataset) : opened;
    auto rows = operation->read(snapshot, filter);
    const double elapsed = Seconds(start);
    if (!rows.ok() && rows.status().IsNotImplemented()) return 3;  // not in this API
    const uint64_t count = OrDie(std::move(rows), std::string(operation->name) + " " + filter);
    if (count != args.child_expected) {
      std::cerr << "filtered_read: " << operation->name << " '" << filter << "' returned " << count
                << " rows, expected " << args.child_expected << "\n";
      return 1;
    }
    if (repetition > 0) seconds.push_back(elapsed);
  }
  anonymous.Stop();

  std::ofstream out(args.child_out, std::ios::trunc);
  out << std::setprecision(9) << "start_rss_mib " << start_rss << "\npeak_rss_mib " << PeakRssMiB()
      << "\nstart_anon_mib " << MiB(start_anonymous) << "\npeak_anon_mib "
      << MiB(anonymous.peak_bytes()) << "\narrow_pool_peak_mib "
      << MiB(static_cast<uint64_t>(arrow::default_memory_pool()->max_memory())) << "\nseconds";
  for (const double s : seconds) out << " " << s;
  out << "\n";
  return out ? 0 : 1;
}

// --- the driver ---

struct Measurement {
  std::string operation;
  std::string mode;
  double selectivity = 0;  // 0 for the full scan
  uint64_t threshold = 0;
  uint64_t rows = 0;
  std::vector<double> seconds;
  double median_s = 0;
  std::map<std::string, double> memory;  // *_mib from the child
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs this program with --child; nullopt when the operation is not in the API under test.
std::optional<Measurement> Measure(const Args& args, const std::string& self,
                                   const Prepared& prepared, const Operation& operation,
                                   const std::string& mode, double selectivity) {
  Measurement measurement;
  measurement.operation = operation.name;
  measurement.mode = mode;
  measurement.selectivity = operation.filtered ? selectivity : 0;
  measurement.threshold =
      operation.filtered ? static_cast<uint64_t>(std::llround(selectivity * args.rows)) : 0;
  measurement.rows = operation.filtered ? measurement.threshold : args.rows;
  const std::string out = args.out + ".child";
  std::vector<std::string> argv_strings = {self,
                                           "--dataset",
                                           args.dataset,
                                           "--rows",
                                           std::to_string(args.rows),
                                           "--repetitions",
                                           std::to_string(args.repetitions),
                                           "--child",
                                           operation.name,
                                           "--child-mode",
                                           mode,
                                           "--child-out",
                                           out,
                                           "--child-threshold",
                                           std::to_string(measurement.threshold),
                                           "--child-expected",
                                           std::to_string(measurement.rows),
                                           "--indexed-version",
                                           std::to_string(prepared.indexed_version)};
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    std::cerr << "filtered_read: cannot start " << self << "\n";
    std::exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) return std::nullopt;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "filtered_read: measurement " << operation.name << " " << mode << " at "
              << selectivity << " failed\n";
    std::exit(1);
  }
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "seconds") {
      double s = 0;
      while (fields >> s) measurement.seconds.push_back(s);
    } else {
      fields >> measurement.memory[key];
    }
  }
  std::filesystem::remove(out);
  if (measurement.seconds.empty()) {
    std::cerr << "filtered_read: no timings from " << operation.name << "\n";
    std::exit(1);
  }
  measurement.median_s = Median(measurement.seconds);
  std::cerr << "filtered_read: " << operation.name << " " << mode << " "
            << (operation.filtered ? FilterFor(measurement.threshold) : "(no filter)")
            << ": median " << measurement.median_s * 1000 << " ms, peak RSS "
            << measurement.memory["peak_rss_mib"] << " MiB\n";
  return measurement;
}

std::string Percent(double fraction) {
  std::ostringstream text;
  text << fraction * 100 << " %";
  return text.str();
}

std::string Milliseconds(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(seconds < 0.01 ? 2 : (seconds < 1 ? 1 : 0))
       << seconds * 1000;
  return text.str();
}

std::string Ratio(double numerator, double denominator) {
  if (numerator <= 0 || denominator <= 0) return "–";
  std::ostringstream text;
  text << std::setprecision(2) << (numerator / denominator < 0.01 ? std::scientific : std::fixed)
       << numerator / denominator;
  return text.str();
}

std::string Fixed(double value, int precision) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(precision) << value;
  return text.str();
}

class Results {
 public:
  explicit Results(std::vector<Measurement> all) : all_(std::move(all)) {}

  const Measurement* Find(const std::string& operation, const std::string& mode,
                          double selectivity) const {
    for (const auto& m : all_) {
      if (m.operation == operation && m.mode == mode &&
          (m.selectivity == selectivity || m.selectivity == 0)) {
        return &m;
      }
    }
    return nullptr;
  }
  double Median(const std::string& operation, const std::string& mode, double selectivity) const {
    const Measurement* m = Find(operation, mode, selectivity);
    return m == nullptr ? 0 : m->median_s;
  }
  const std::vector<Measurement>& all() const { return all_; }

 private:
  std::vector<Measurement> all_;
};

std::string Cell(const Results& results, const std::string& operation, const std::string& mode,
                 double selectivity) {
  const double median = results.Median(operation, mode, selectivity);
  return median > 0 ? Milliseconds(median) : "–";
}

void PrintTables(std::ostream& out, const Args& args, const Prepared& prepared,
                 const Results& results) {
  out << "filtered_read: " << args.rows << " rows, BTREE on `key`, filter `key < T`, medians of "
      << args.repetitions << " repetitions" << (args.label.empty() ? "" : " (" + args.label + ")")
      << "\n";
  for (const auto& mode : args.modes) {
    const double full = results.Median("full_scan", mode, 0);
    const double full_read = results.Median("full_scan_read", mode, 0);
    out << "\n## " << (mode == "warm" ? "dataset opened once" : "dataset opened each repetition")
        << " (" << mode << "), ms\n\n"
        << "full scan, no filter: " << Cell(results, "full_scan", mode, 0)
        << " ms; the same, the consumer reading every byte: "
        << Cell(results, "full_scan_read", mode, 0) << " ms\n\n"
        << "| selectivity | rows | scan with index | scan without | with ÷ without | with ÷ full "
           "scan | with ÷ full scan read |\n"
        << "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const double s : args.selectivities) {
      const double scan = results.Median("scan_index", mode, s);
      out << "| " << Percent(s) << " | " << std::llround(s * args.rows) << " | "
          << Cell(results, "scan_index", mode, s) << " | " << Cell(results, "scan_noindex", mode, s)
          << " | " << Ratio(scan, results.Median("scan_noindex", mode, s)) << " | "
          << Ratio(scan, full) << " | " << Ratio(scan, full_read) << " |\n";
    }
    out << "\n| selectivity | rows | count with index | count without | with ÷ without | with ÷ "
           "full scan | with ÷ full scan read | count through planner |\n"
        << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const double s : args.selectivities) {
      const double count = results.Median("count_index", mode, s);
      out << "| " << Percent(s) << " | " << std::llround(s * args.rows) << " | "
          << Cell(results, "count_index", mode, s) << " | "
          << Cell(results, "count_noindex", mode, s) << " | "
          << Ratio(count, results.Median("count_noindex", mode, s)) << " | " << Ratio(count, full)
          << " | " << Ratio(count, full_read) << " | " << Cell(results, "count_planner", mode, s)
          << " |\n";
    }
  }
  out << "\n## peak memory per process, MiB\n\n"
         "RSS counts the mapped data-file pages a read touched; anonymous is RSS without them "
         "(sampled every 2 ms); the Arrow pool is the peak of Arrow's allocator.\n\n"
      << "| operation | mode | selectivity | peak RSS | peak anonymous | Arrow pool peak |\n"
      << "| --- | --- | --- | ---: | ---: | ---: |\n";
  for (const auto& m : results.all()) {
    auto memory = m.memory;
    out << "| " << m.operation << " | " << m.mode << " | "
        << (m.selectivity > 0 ? Percent(m.selectivity) : "all") << " | "
        << Fixed(memory["peak_rss_mib"], 0) << " | " << Fixed(memory["peak_anon_mib"], 0) << " | "
        << Fixed(memory["arrow_pool_peak_mib"], 0) << " |\n";
  }
  double baseline = 0;
  double baseline_anonymous = 0;
  if (!results.all().empty()) {
    baseline = results.all()[0].memory.at("start_rss_mib");
    baseline_anonymous = results.all()[0].memory.at("start_anon_mib");
  }
  out << "\nA child before its first read: RSS " << Fixed(baseline, 0) << " MiB, anonymous "
      << Fixed(baseline_anonymous, 0) << " MiB. Dataset "
      << (prepared.created ? "created" : "reused") << "; indexed version "
      << prepared.indexed_version << ".\n";
}

void WriteJson(const std::string& path, const Args& args, const Prepared& prepared,
               const Results& results) {
  std::ofstream json(path, std::ios::trunc);
  json << std::setprecision(9) << "{\"benchmark\": \"filtered_read\", \"label\": \"" << args.label
       << "\", \"rows\": " << args.rows << ", \"repetitions\": " << args.repetitions
       << ", \"indexed_version\": " << prepared.indexed_version
       << ", \"dataset_created\": " << (prepared.created ? "true" : "false")
       << ", \"create_s\": " << prepared.create_s << ", \"index_s\": " << prepared.index_s
       << ", \"hardware_concurrency\": " << std::thread::hardware_concurrency()
       << ", \"measurements\": [";
  bool first = true;
  for (const auto& m : results.all()) {
    json << (first ? "" : ",") << "\n  {\"operation\": \"" << m.operation << "\", \"mode\": \""
         << m.mode << "\", \"selectivity\": " << m.selectivity << ", \"filter\": \""
         << (m.selectivity > 0 ? FilterFor(m.threshold) : "") << "\", \"rows\": " << m.rows
         << ", \"median_s\": " << m.median_s << ", \"seconds\": [";
    for (size_t i = 0; i < m.seconds.size(); ++i) json << (i ? ", " : "") << m.seconds[i];
    json << "]";
    for (const auto& [key, value] : m.memory) json << ", \"" << key << "\": " << value;
    json << "}";
    first = false;
  }
  json << "\n]}\n";
  if (!json) {
    std::cerr << "filtered_read: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = ParseArgs(argc, argv);
  if (!args.child_operation.empty()) return RunChild(args);

  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const Prepared prepared = PrepareDataset(args.dataset, args.rows);
  std::vector<Measurement> all;
  for (const auto& operation : Operations()) {
    if (!args.operations.empty() && std::find(args.operations.begin(), args.operations.end(),
                                              operation.name) == args.operations.end()) {
      continue;
    }
    for (const auto& mode : args.modes) {
      const std::vector<double> selectivities =
          operation.filtered ? args.selectivities : std::vector<double>{1.0};
      for (const double selectivity : selectivities) {
        auto measurement = Measure(args, self, prepared, operation, mode, selectivity);
        if (!measurement.has_value()) break;  // not in this API
        all.push_back(std::move(*measurement));
      }
    }
  }
  const Results results(std::move(all));
  WriteJson(args.out, args, prepared, results);
  PrintTables(std::cout, args, prepared, results);
  return 0;
}
