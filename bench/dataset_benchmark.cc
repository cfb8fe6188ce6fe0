// Scan and take throughput of the dataset layer on a synthetic embedding dataset.
// No thresholds: run `make bench` and compare runs on the same machine.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "tessera/dataset/dataset.h"
#include "tessera/synthetic/embedding_generator.h"

namespace {

using tessera::dataset::Dataset;

constexpr int64_t kRows = 200000;
constexpr int kDim = 128;

// One dataset shared by all benchmarks of the process, created on first use.
std::shared_ptr<Dataset> SharedDataset() {
  static std::shared_ptr<Dataset> dataset = [] {
    const auto path = std::filesystem::temp_directory_path() / "tessera-bench-dataset";
    std::filesystem::remove_all(path);
    tessera::synthetic::EmbeddingOptions options;
    options.rows = kRows;
    options.dim = kDim;
    auto source = tessera::synthetic::MakeEmbeddingReader(options).ValueOrDie();
    tessera::dataset::WriteOptions write;
    write.max_rows_per_file = 50000;
    return Dataset::Create(path.string(), source, write).ValueOrDie();
  }();
  return dataset;
}

void ScanColumns(benchmark::State& state, std::vector<std::string> columns, std::string filter) {
  auto dataset = SharedDataset();
  tessera::dataset::ScanOptions options;
  options.columns = std::move(columns);
  options.filter = std::move(filter);
  int64_t rows = 0;
  for (auto _ : state) {
    auto reader = dataset->Scan(options).ValueOrDie();
    std::shared_ptr<arrow::RecordBatch> batch;
    while (reader->ReadNext(&batch).ok() && batch != nullptr) rows += batch->num_rows();
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(kRows) * state.iterations(),
                                                benchmark::Counter::kIsRate);
  benchmark::DoNotOptimize(rows);
}

void BM_ScanVectors(benchmark::State& state) { ScanColumns(state, {"id", "vector"}, ""); }
void BM_ScanScalars(benchmark::State& state) {
  ScanColumns(state, {"id", "price", "category"}, "");
}
void BM_ScanFiltered(benchmark::State& state) {
  ScanColumns(state, {"id", "vector"}, "price < 50 AND category = 'books'");
}

void BM_TakeRandomRows(benchmark::State& state) {
  auto dataset = SharedDataset();
  const auto count = static_cast<size_t>(state.range(0));
  std::mt19937_64 random(1);
  std::vector<uint64_t> addresses(count);
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& address : addresses) {
      const uint64_t row = random() % kRows;
      address = tessera::dataset::MakeRowAddress(static_cast<uint32_t>(row / 50000),
                                                 static_cast<uint32_t>(row % 50000));
    }
    state.ResumeTiming();
    auto table = dataset->Take(addresses, {"id", "vector"}).ValueOrDie();
    benchmark::DoNotOptimize(table);
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(count) * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

BENCHMARK(BM_ScanVectors)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanScalars)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanFiltered)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TakeRandomRows)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
