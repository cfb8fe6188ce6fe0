// Throughput of the vector kernels (index/vector/simd/kernels.h) at every level this CPU
// supports: l2 batch at dim 128 and 768, u8·s8 dot batch at dim 128, PQ ADC with m = 16.
// bytes_per_second counts the row bytes read (the query, weights and table stay in cache).
// Each kernel runs over two working sets of rows: 256 KiB, which stays in L2 and shows the
// arithmetic, and 4 MiB, which streams from L3 and shows where bandwidth takes over.
// No thresholds: compare levels and runs on the same machine.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "tessera/index/vector/simd/kernel_tables.h"
#include "tessera/index/vector/simd/kernels.h"

namespace {

using tessera::index::vector::simd::DetectedLevel;
using tessera::index::vector::simd::Kernels;
using tessera::index::vector::simd::KernelsFor;
using tessera::index::vector::simd::Level;
using tessera::index::vector::simd::LevelName;

std::vector<float> RandomFloats(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(random);
  return values;
}

std::vector<uint8_t> RandomBytes(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> values(count);
  for (uint8_t& value : values) value = static_cast<uint8_t>(byte(random));
  return values;
}

void L2Batch(benchmark::State& state, Level level, int dim, int64_t working_set) {
  const Kernels& kernels = KernelsFor(level);
  const int64_t count = working_set / (dim * static_cast<int64_t>(sizeof(float)));
  const std::vector<float> query = RandomFloats(dim, 1);
  const std::vector<float> rows = RandomFloats(static_cast<size_t>(count) * dim, 2);
  std::vector<float> out(count);
  for (auto _ : state) {
    kernels.l2_squared_batch(query.data(), rows.data(), count, dim, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * count * dim * static_cast<int64_t>(sizeof(float)));
  state.SetItemsProcessed(state.iterations() * count);
}

void DotU8S8Batch(benchmark::State& state, Level level, int dim, int64_t working_set) {
  const Kernels& kernels = KernelsFor(level);
  const int64_t count = working_set / dim;
  const std::vector<uint8_t> codes = RandomBytes(static_cast<size_t>(count) * dim, 3);
  const std::vector<uint8_t> weight_bytes = RandomBytes(dim, 4);
  const std::vector<int8_t> weights(weight_bytes.begin(), weight_bytes.end());
  std::vector<int32_t> out(count);
  for (auto _ : state) {
    kernels.dot_u8_s8_batch(codes.data(), dim, count, weights.data(), dim, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * count * dim);
  state.SetItemsProcessed(state.iterations() * count);
}

using PqAdcKernel = void (*)(const uint8_t* codes, int64_t count, int m, const float* table,
                             float* out);

void PqAdcBatch(benchmark::State& state, PqAdcKernel kernel, int m, int64_t working_set) {
  const int64_t count = working_set / m;
  const std::vector<uint8_t> codes = RandomBytes(static_cast<size_t>(count) * m, 5);
  const std::vector<float> table = RandomFloats(static_cast<size_t>(m) * 256, 6);
  std::vector<float> out(count);
  for (auto _ : state) {
    kernel(codes.data(), count, m, table.data(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * count * m);
  state.SetItemsProcessed(state.iterations() * count);
}

void RegisterAll() {
  for (int64_t working_set : {int64_t{256} << 10, int64_t{4} << 20}) {
    const std::string size = working_set < (int64_t{1} << 20)
                                 ? std::to_string(working_set >> 10) + "KiB"
                                 : std::to_string(working_set >> 20) + "MiB";
    for (Level level : {Level::kScalar, Level::kAvx2, Level::kAvx512, Level::kAvx512Vnni}) {
      if (level > DetectedLevel()) break;
      const std::string suffix = "/rows:" + size + "/" + std::string(LevelName(level));
      for (int dim : {128, 768}) {
        benchmark::RegisterBenchmark(("L2Batch/dim:" + std::to_string(dim) + suffix).c_str(),
                                     L2Batch, level, dim, working_set);
      }
      benchmark::RegisterBenchmark(("DotU8S8Batch/dim:128" + suffix).c_str(), DotU8S8Batch, level,
                                   128, working_set);
      benchmark::RegisterBenchmark(("PqAdcBatch/m:16" + suffix).c_str(), PqAdcBatch,
                                   KernelsFor(level).pq_adc_batch, 16, working_set);
    }
#if defined(TESSERA_SIMD_X86)
    // The gather kernels the tables do not use (kernel_tables.h says why).
    const std::string rows = "/rows:" + size + "/";
    if (DetectedLevel() >= Level::kAvx2) {
      benchmark::RegisterBenchmark(("PqAdcGather/m:16" + rows + "avx2").c_str(), PqAdcBatch,
                                   tessera::index::vector::simd::GatherPqAdcBatchAvx2, 16,
                                   working_set);
    }
    if (DetectedLevel() >= Level::kAvx512) {
      benchmark::RegisterBenchmark(("PqAdcGather/m:16" + rows + "avx512").c_str(), PqAdcBatch,
                                   tessera::index::vector::simd::GatherPqAdcBatchAvx512, 16,
                                   working_set);
    }
#endif
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
