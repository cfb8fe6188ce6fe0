// Scan and take throughput of the dataset layer on a synthetic embedding dataset.
// No thresholds: run `make bench` and compare runs on the same machine.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include <arrow/array.h>

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

// `fresh_open`: every iteration opens the dataset anew, so nothing read before is trusted and
// every byte returned is verified against its checksums (the cost of a first read, as in a
// one-shot CLI command); otherwise the opened dataset is reused, as a long-lived process does.
// `touch`: the consumer reads every vector value (sums them), as a real consumer would.
void ScanColumns(benchmark::State& state, std::vector<std::string> columns, std::string filter,
                 bool fresh_open = false, bool touch = false) {
  auto dataset = SharedDataset();
  tessera::dataset::ScanOptions options;
  options.columns = std::move(columns);
  options.filter = std::move(filter);
  int64_t rows = 0;
  double sum = 0;
  for (auto _ : state) {
    if (fresh_open) dataset = Dataset::Open(dataset->uri()).ValueOrDie();
    auto reader = dataset->Scan(options).ValueOrDie();
    std::shared_ptr<arrow::RecordBatch> batch;
    while (reader->ReadNext(&batch).ok() && batch != nullptr) {
      rows += batch->num_rows();
      if (!touch) continue;
      const auto& vectors =
          static_cast<const arrow::FixedSizeListArray&>(*batch->GetColumnByName("vector"));
      const auto& values = static_cast<const arrow::FloatArray&>(*vectors.values());
      const float* data = values.raw_values();
      for (int64_t i = 0; i < values.length(); ++i) sum += data[i];
    }
  }
  benchmark::DoNotOptimize(sum);
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
void BM_ScanVectorsFreshOpen(benchmark::State& state) {
  ScanColumns(state, {"id", "vector"}, "", /*fresh_open=*/true);
}
void BM_ScanScalarsFreshOpen(benchmark::State& state) {
  ScanColumns(state, {"id", "price", "category"}, "", /*fresh_open=*/true);
}
void BM_ScanAndSumVectors(benchmark::State& state) {
  ScanColumns(state, {"id", "vector"}, "", /*fresh_open=*/false, /*touch=*/true);
}
void BM_ScanAndSumVectorsFreshOpen(benchmark::State& state) {
  ScanColumns(state, {"id", "vector"}, "", /*fresh_open=*/true, /*touch=*/true);
}

void TakeRandomRows(benchmark::State& state, bool fresh_open) {
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
    if (fresh_open) dataset = Dataset::Open(dataset->uri()).ValueOrDie();
    auto table = dataset->Take(addresses, {"id", "vector"}).ValueOrDie();
    benchmark::DoNotOptimize(table);
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(count) * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

void BM_TakeRandomRows(benchmark::State& state) { TakeRandomRows(state, false); }
void BM_TakeRandomRowsFreshOpen(benchmark::State& state) { TakeRandomRows(state, true); }

BENCHMARK(BM_ScanVectors)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanVectorsFreshOpen)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanScalarsFreshOpen)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanAndSumVectors)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanAndSumVectorsFreshOpen)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanScalars)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanFiltered)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TakeRandomRows)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TakeRandomRowsFreshOpen)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
