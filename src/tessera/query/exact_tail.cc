#include "tessera/query/exact_tail.h"

#include <utility>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/vector_column.h"

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
  Scorer scorer(*this, query, capacity);
  for (const EligibleFragment* fragment : fragments_) {
    if (fragment->allowed) {
      if (fragment->allowed->isEmpty()) continue;
      if (fragment->allowed->cardinality() * kTakeFraction < fragment->physical_rows()) {
        ARROW_RETURN_NOT_OK(TakeAllowed(*fragment, scorer));
        continue;
      }
    }
    ARROW_RETURN_NOT_OK(ScanFragment(*fragment, scorer));
  }
  return std::move(scorer).Finish();
}

arrow::Status ExactTail::ScanFragment(const EligibleFragment& fragment, Scorer& scorer) const {
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        dataset::FragmentReader::Open(*dataset_.storage(), *fragment.fragment,
                                                      dataset_.schema(), {column_index_}));
  for (int index = 0; index < reader->num_batches(); ++index) {
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(index));
    dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
    ARROW_ASSIGN_OR_RAISE(auto vectors, index::vector::VectorRows::Make(batch->column(0)));
    const uint64_t first = static_cast<uint64_t>(index) * reader->rows_per_batch();
    for (int64_t row = 0; row < vectors.size(); ++row) {
      const auto offset = static_cast<uint32_t>(first + static_cast<uint64_t>(row));
      if (!fragment.Accepts(offset)) continue;
      scorer.Score(vectors, row, dataset::MakeRowAddress(fragment.id(), offset));
    }
  }
  return arrow::Status::OK();
}

arrow::Status ExactTail::TakeAllowed(const EligibleFragment& fragment, Scorer& scorer) const {
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
    scorer.Score(vectors, row, addresses[static_cast<size_t>(row)]);
  }
  return arrow::Status::OK();
}

}  // namespace tessera::query
