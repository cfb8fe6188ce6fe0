#include "tessera/index/vector/vector_sample.h"

#include <algorithm>
#include <unordered_set>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/vector/random.h"
#include "tessera/index/vector/vector_column.h"
#include "tessera/status.h"

namespace tessera::index::vector {

std::vector<uint64_t> SamplePositions(uint64_t total, uint64_t count, uint64_t seed) {
  std::vector<uint64_t> positions;
  if (count >= total) {
    positions.resize(total);
    for (uint64_t i = 0; i < total; ++i) positions[i] = i;
    return positions;
  }
  positions.reserve(count);
  Random random(seed);
  if (count >= total / 16) {
    // Selection sampling (Knuth's algorithm S): one draw per position, no set.
    uint64_t needed = count;
    for (uint64_t i = 0; i < total && needed > 0; ++i) {
      if (random.Below(total - i) < needed) {
        positions.push_back(i);
        --needed;
      }
    }
    return positions;
  }
  // Floyd's algorithm: `count` draws, whatever the total.
  std::unordered_set<uint64_t> chosen;
  chosen.reserve(count * 2);
  for (uint64_t j = total - count; j < total; ++j) {
    const uint64_t candidate = random.Below(j + 1);
    chosen.insert(chosen.count(candidate) ? j : candidate);
  }
  positions.assign(chosen.begin(), chosen.end());
  std::sort(positions.begin(), positions.end());
  return positions;
}

arrow::Result<VectorSample> SampleVectors(const BuildInput& input, int dim, int64_t max_rows,
                                          uint64_t seed) {
  uint64_t total = 0;
  for (const auto& fragment : input.fragments) total += fragment.physical_rows();
  const std::vector<uint64_t> positions =
      SamplePositions(total, static_cast<uint64_t>(std::max<int64_t>(max_rows, 0)), seed);

  VectorSample sample;
  sample.vectors.reserve(positions.size() * static_cast<size_t>(dim));
  size_t next = 0;              // the next position to take
  uint64_t fragment_start = 0;  // global position of the fragment's first row
  for (const auto& fragment : input.fragments) {
    const uint64_t fragment_end = fragment_start + fragment.physical_rows();
    if (next < positions.size() && positions[next] < fragment_end) {
      ARROW_ASSIGN_OR_RAISE(auto reader,
                            dataset::FragmentReader::Open(*input.storage, fragment, input.schema,
                                                          {input.column_index}));
      for (int b = 0;
           b < reader->num_batches() && next < positions.size() && positions[next] < fragment_end;
           ++b) {
        const uint64_t batch_start = fragment_start + b * reader->rows_per_batch();
        const uint64_t batch_end = std::min(batch_start + reader->rows_per_batch(), fragment_end);
        if (positions[next] >= batch_end) continue;
        ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(b));
        dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
        ARROW_ASSIGN_OR_RAISE(auto rows, VectorRows::Make(batch->column(0)));
        if (rows.dim() != dim) {
          return Corrupt("fragment ", fragment.id(), " holds vectors of dimension ", rows.dim(),
                         " in a column of dimension ", dim);
        }
        for (; next < positions.size() && positions[next] < batch_end; ++next) {
          const int64_t row = static_cast<int64_t>(positions[next] - batch_start);
          if (row >= rows.size() || rows.IsNull(row)) continue;
          sample.vectors.insert(sample.vectors.end(), rows.Row(row), rows.Row(row) + dim);
          ++sample.rows;
        }
      }
    }
    // Positions beyond what the fragment's batches hold (a short file) are skipped.
    while (next < positions.size() && positions[next] < fragment_end) ++next;
    fragment_start = fragment_end;
  }
  return sample;
}

}  // namespace tessera::index::vector
