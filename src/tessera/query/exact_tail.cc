#include "tessera/query/exact_tail.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/vector_column.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

// Scores rows of one query into its best rows.
class ExactTail::Scorer {
 public:
  Scorer(const ExactTail& tail, const float* query, size_t capacity)
      : tail_(tail), query_(query), best_(capacity) {}

  void Score(const index::vector::VectorRows& vectors, int64_t row, uint64_t address) {
    if (vectors.IsNull(row)) return;
    const float distance =
        index::vector::Distance(tail_.metric_, query_, vectors.Row(row), tail_.dim_);
    if (tail_.range_.Contains(distance)) best_.Add({address, distance});
  }

  std::vector<index::ScoredRow> Finish() && { return std::move(best_).Take(); }

 private:
  const ExactTail& tail_;
  const float* query_;
  index::vector::BestRows best_;
};

ExactTail::ExactTail(const dataset::Dataset& dataset, int column_index, int dim,
                     index::vector::Metric metric, const DistanceRange& range,
                     std::vector<const EligibleFragment*> fragments)
    : dataset_(dataset),
      column_index_(column_index),
      dim_(dim),
      metric_(metric),
      range_(range),
      fragments_(std::move(fragments)) {}

arrow::Result<std::vector<index::ScoredRow>> ExactTail::Search(const float* query,
                                                               size_t capacity) const {
  ARROW_ASSIGN_OR_RAISE(auto results, SearchBatch(&query, 1, capacity));
  return std::move(results[0]);
}

arrow::Result<std::vector<std::vector<index::ScoredRow>>> ExactTail::SearchBatch(
    const float* const* queries, size_t count, size_t capacity) const {
  // One scanned fragment's reader, opened by its first batch and dropped after its last, so
  // that only the fragments being scanned hold their readers (an external file's decoded row
  // groups are memory).
  struct Scanned {
    std::mutex mutex;
    std::shared_ptr<const dataset::FragmentReader> reader;
    std::atomic<int> remaining{0};
  };
  // Units of work: one batch of a scanned fragment, or the allowed rows of a sparse one.
  struct Unit {
    const EligibleFragment* fragment;
    Scanned* scanned;  // null: take the allowed rows
    int batch = 0;
  };
  std::vector<std::unique_ptr<Scanned>> scanned;
  std::vector<Unit> units;
  for (const EligibleFragment* fragment : fragments_) {
    if (fragment->allowed) {
      if (fragment->allowed->isEmpty()) continue;
      if (fragment->allowed->cardinality() * kTakeFraction < fragment->physical_rows()) {
        units.push_back({fragment, nullptr, 0});
        continue;
      }
    }
    const uint64_t rows_per_batch =
        fragment->fragment->files_size() == 1 ? fragment->fragment->files(0).rows_per_batch() : 0;
    if (rows_per_batch == 0) {
      if (fragment->physical_rows() == 0) continue;
      // Not a layout this build reads: opening its reader says why.
      ARROW_RETURN_NOT_OK(dataset::FragmentReader::Open(*dataset_.storage(), *fragment->fragment,
                                                        dataset_.schema(), {column_index_})
                              .status());
      return Corrupt("fragment ", fragment->id(), " of dataset ", dataset_.uri(),
                     " holds rows but no rows per batch");
    }
    const auto batches =
        static_cast<int>((fragment->physical_rows() + rows_per_batch - 1) / rows_per_batch);
    scanned.push_back(std::make_unique<Scanned>());
    scanned.back()->remaining = batches;
    for (int batch = 0; batch < batches; ++batch) {
      units.push_back({fragment, scanned.back().get(), batch});
    }
  }
  std::vector<index::vector::BestRows> best(count, index::vector::BestRows(capacity));
  std::mutex best_mutex;
  ARROW_RETURN_NOT_OK(util::ParallelFor(
      static_cast<int64_t>(units.size()),
      [&](int64_t begin, int64_t end) -> arrow::Status {
        std::vector<Scorer> scorers;
        scorers.reserve(count);
        for (size_t q = 0; q < count; ++q) scorers.emplace_back(*this, queries[q], capacity);
        for (int64_t u = begin; u < end; ++u) {
          const Unit& unit = units[static_cast<size_t>(u)];
          if (unit.scanned == nullptr) {
            ARROW_RETURN_NOT_OK(TakeAllowed(*unit.fragment, scorers));
            continue;
          }
          std::shared_ptr<const dataset::FragmentReader> reader;
          {
            std::lock_guard<std::mutex> lock(unit.scanned->mutex);
            if (unit.scanned->reader == nullptr) {
              ARROW_ASSIGN_OR_RAISE(
                  unit.scanned->reader,
                  dataset::FragmentReader::Open(*dataset_.storage(), *unit.fragment->fragment,
                                                dataset_.schema(), {column_index_}));
            }
            reader = unit.scanned->reader;
          }
          ARROW_RETURN_NOT_OK(ScanBatch(*unit.fragment, *reader, unit.batch, scorers));
          if (--unit.scanned->remaining == 0) {
            std::lock_guard<std::mutex> lock(unit.scanned->mutex);
            unit.scanned->reader.reset();
          }
        }
        std::lock_guard<std::mutex> lock(best_mutex);
        for (size_t q = 0; q < count; ++q) {
          for (const auto& row : std::move(scorers[q]).Finish()) best[q].Add(row);
        }
        return arrow::Status::OK();
      },
      /*min_chunk=*/1));
  std::vector<std::vector<index::ScoredRow>> results;
  results.reserve(count);
  for (auto& rows : best) results.push_back(std::move(rows).Take());
  return results;
}

arrow::Status ExactTail::ScanBatch(const EligibleFragment& fragment,
                                   const dataset::FragmentReader& reader, int index,
                                   std::vector<Scorer>& scorers) const {
  ARROW_ASSIGN_OR_RAISE(auto batch, reader.ReadBatch(index));
  dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
  ARROW_ASSIGN_OR_RAISE(auto vectors, index::vector::VectorRows::Make(batch->column(0)));
  const uint64_t first = static_cast<uint64_t>(index) * reader.rows_per_batch();
  for (int64_t row = 0; row < vectors.size(); ++row) {
    const auto offset = static_cast<uint32_t>(first + static_cast<uint64_t>(row));
    if (!fragment.Accepts(offset)) continue;
    const uint64_t address = dataset::MakeRowAddress(fragment.id(), offset);
    for (Scorer& scorer : scorers) scorer.Score(vectors, row, address);
  }
  return arrow::Status::OK();
}

arrow::Status ExactTail::TakeAllowed(const EligibleFragment& fragment,
                                     std::vector<Scorer>& scorers) const {
  std::vector<uint64_t> addresses;
  addresses.reserve(fragment.allowed->cardinality());
  for (uint32_t offset : *fragment.allowed) {
    addresses.push_back(dataset::MakeRowAddress(fragment.id(), offset));
  }
  const std::string& column = dataset_.schema()->field(column_index_)->name();
  ARROW_ASSIGN_OR_RAISE(auto table, dataset_.Take(addresses, {column}));
  ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
  ARROW_ASSIGN_OR_RAISE(auto vectors, index::vector::VectorRows::Make(batch->column(0)));
  for (int64_t row = 0; row < vectors.size(); ++row) {
    for (Scorer& scorer : scorers) scorer.Score(vectors, row, addresses[static_cast<size_t>(row)]);
  }
  return arrow::Status::OK();
}

}  // namespace tessera::query
