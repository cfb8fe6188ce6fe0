#include "tessera/query/prepared_nearest.h"

#include <arrow/builder.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <utility>

#include "tessera/dataset/scanner.h"
#include "tessera/expr/filter.h"
#include "tessera/query/eligible_rows.h"
#include "tessera/query/exact_tail.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/query/nearest_explain.h"
#include "tessera/query/nearest_merge.h"
#include "tessera/query/nearest_refinement.h"
#include "tessera/query/nearest_result.h"
#include "tessera/query/nearest_sources.h"
#include "tessera/query/vector_segment_search.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

namespace {

using index::ScoredRow;
using index::vector::Metric;

}  // namespace

// The composition: NearestSources says which segment or the exact tail serves each fragment,
// EligibleRows which rows may be returned; per query, every VectorSegmentSearch and the
// ExactTail find their best rows, Refinement re-ranks the candidates of approximate segments
// (batch-wide), MergeResults makes the answer and NearestResult its table. Explain lines come
// from nearest_explain.h.
class PreparedNearest::Impl {
 public:
  Impl(std::shared_ptr<const Snapshot> snapshot, const NearestOptions& options)
      : snapshot_(std::move(snapshot)), dataset_(snapshot_->dataset()), options_(options) {
    range_.lower = options.lower_distance;
    range_.upper = options.upper_distance;
  }

 private:
  friend class PreparedNearest;

  arrow::Status Validate() {
    const auto& schema = *dataset_.schema();
    column_index_ = schema.GetFieldIndex(options_.column);
    if (column_index_ < 0) {
      if (!schema.GetAllFieldIndices(options_.column).empty()) {
        return InvalidArgument("dataset ", dataset_.uri(), " has several columns named '",
                               options_.column, "'");
      }
      return InvalidArgument("no column '", options_.column, "' in dataset ", dataset_.uri(),
                             "; its columns are: ", dataset::ColumnNames(schema));
    }
    const auto& type = schema.field(column_index_)->type();
    const bool is_vector = type->id() == arrow::Type::FIXED_SIZE_LIST &&
                           (type->field(0)->type()->id() == arrow::Type::FLOAT ||
                            type->field(0)->type()->id() == arrow::Type::HALF_FLOAT);
    if (!is_vector) {
      return InvalidArgument("column '", options_.column, "' of dataset ", dataset_.uri(), " is ",
                             type->ToString(),
                             ", not a vector column (fixed_size_list<float32 or float16>)");
    }
    dim_ = static_cast<const arrow::FixedSizeListType&>(*type).list_size();
    if (options_.offset < 0) {
      return InvalidArgument("offset must not be negative, got ", options_.offset);
    }
    for (const auto& fragment : dataset_.manifest().fragments()) {
      total_rows_ += fragment.physical_rows();
    }
    ARROW_RETURN_NOT_OK(Resolve({}).status());
    if ((options_.lower_distance && std::isnan(*options_.lower_distance)) ||
        (options_.upper_distance && std::isnan(*options_.upper_distance))) {
      return InvalidArgument("a distance bound must be a number, not NaN");
    }
    ARROW_ASSIGN_OR_RAISE(projection_, dataset::ResolveColumns(schema, options_.columns));
    for (int index : projection_) {
      if (schema.field(index)->name() == kDistanceColumn) {
        return InvalidArgument("column '", kDistanceColumn, "' of dataset ", dataset_.uri(),
                               " has the name of the distance column nearest adds; leave it out "
                               "of the projected columns");
      }
    }
    return arrow::Status::OK();
  }

  // The prefilter's allow-list: the one place it is computed.
  arrow::Result<std::optional<RowsByFragment>> ParseFilter() {
    if (options_.filter.empty()) return std::nullopt;
    ARROW_ASSIGN_OR_RAISE(filter_, expr::Filter::Parse(options_.filter, dataset_.schema()));
    if (!options_.prefilter) return std::nullopt;
    ARROW_ASSIGN_OR_RAISE(auto allowed,
                          FindMatchingRows(*snapshot_, *filter_, &prefilter_explain_,
                                           "prefilter " + filter_->ToString() + ": "));
    return std::optional<RowsByFragment>(std::move(allowed));
  }

  arrow::Status Prepare(Explain* explain) {
    ARROW_RETURN_NOT_OK(Validate());
    if (options_.use_index) {
      ARROW_ASSIGN_OR_RAISE(sources_,
                            FindNearestSources(*snapshot_, column_index_, dim_, options_.metric));
    } else {
      sources_ = AssignSources(snapshot_->manifest(), {}, dim_, options_.metric,
                               {"vector indexes not used: use_index is false"});
    }
    ARROW_ASSIGN_OR_RAISE(auto allowed, ParseFilter());
    result_ = std::make_unique<NearestResult>(*snapshot_, projection_, options_.with_row_address,
                                              options_.prefilter ? nullptr : filter_);
    ARROW_ASSIGN_OR_RAISE(auto eligible, EligibleRows::Make(*snapshot_, std::move(allowed)));
    eligible_ = std::make_unique<EligibleRows>(std::move(eligible));
    if (eligible_->prefiltered()) {
      for (size_t segment = 0; segment < sources_.segments.size(); ++segment) {
        const VectorSource& source = sources_.segments[segment];
        if (!ScoreAllowedRowsExactly(source, *eligible_, options_.nprobes)) continue;
        sources_.MoveToExactTail(segment,
                                 {ExactReason::Kind::kFewPrefilteredRows, source.index_name});
      }
    }
    ExplainNearestPlan(options_, dataset_.manifest(), sources_, prefilter_explain_, explain);

    searches_.reserve(sources_.segments.size());
    for (const VectorSource& source : sources_.segments) {
      searches_.emplace_back(source, *eligible_, dim_, range_);
    }
    std::vector<const EligibleFragment*> tail;
    for (size_t position : sources_.ExactTail()) tail.push_back(&eligible_->fragments()[position]);
    exact_tail_ = std::make_unique<ExactTail>(dataset_, column_index_, dim_, sources_.metric,
                                              range_, std::move(tail));
    // Raw vectors of the fragments that approximate segments serve, for refinement.
    std::vector<format::Fragment> refinable;
    for (const VectorSource& source : sources_.segments) {
      if (!source.reader->approximate()) continue;
      for (size_t position : source.fragments) {
        refinable.push_back(dataset_.manifest().fragments(static_cast<int>(position)));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto refinement, Refinement::Open(dataset_, column_index_, dim_,
                                                            sources_.metric, refinable));
    refinement_ = std::make_unique<Refinement>(std::move(refinement));
    return arrow::Status::OK();
  }

  // Huge k, offset or refine_factor are legal: nothing is sized by them beyond the rows the
  // version holds (capacity here, candidates per segment in VectorSegmentSearch), so k = 2^31 - 1
  // on a small dataset returns all its rows.
  arrow::Result<SearchLimits> Resolve(const NearestKnobs& knobs) const {
    const int64_t k = knobs.k != -1 ? knobs.k : options_.k;
    if (k < 1) return InvalidArgument("k must be at least 1, got ", k);
    SearchLimits resolved;
    // offset >= 0 (Validate) and k >= 1: the sum cannot wrap as unsigned.
    const uint64_t wanted = static_cast<uint64_t>(k) + static_cast<uint64_t>(options_.offset);
    resolved.capacity = static_cast<size_t>(std::min(wanted, total_rows_));
    resolved.nprobes = knobs.nprobes != -1 ? knobs.nprobes : options_.nprobes;
    if (resolved.nprobes < 1) {
      return InvalidArgument("nprobes must be at least 1, got ", resolved.nprobes);
    }
    resolved.refine_factor =
        knobs.refine_factor != -1 ? knobs.refine_factor : options_.refine_factor;
    if (resolved.refine_factor < 1) {
      return InvalidArgument("refine_factor must be at least 1, got ", resolved.refine_factor);
    }
    resolved.ef = knobs.ef != -1 ? knobs.ef : options_.ef;
    if (resolved.ef < 0) {
      return InvalidArgument("ef must be 0 (the default) or positive, got ", resolved.ef);
    }
    return resolved;
  }

  arrow::Status CheckQuery(const float* query, int64_t number, int64_t count) const {
    if (query == nullptr) return InvalidArgument("a nearest-neighbour search needs a query vector");
    const std::string which =
        count > 1 ? "query vector " + std::to_string(number) + "'s" : "the query vector's";
    for (int i = 0; i < dim_; ++i) {
      if (!std::isfinite(query[i])) {
        return InvalidArgument(which, " element ", i, " is ", query[i],
                               "; every element must be a finite number");
      }
    }
    return arrow::Status::OK();
  }

  // The candidates one approximate segment returned for one query, awaiting refinement.
  struct Candidates {
    size_t segment = 0;
    std::vector<ScoredRow> rows;
    bool exhausted = false;  // the segment has no more rows to offer
  };
  // One query's answer so far: rows with final distances, and candidates still to refine.
  struct Partial {
    std::vector<ScoredRow> rows;
    std::vector<Candidates> candidates;
  };

  // What segment `segment` found for a query: candidates to refine, or rows of the answer.
  static void AddPart(size_t segment, VectorSegmentSearch::Found found, Partial* partial) {
    if (found.candidates) {
      partial->candidates.push_back({segment, std::move(found.rows), found.exhausted});
    } else {
      partial->rows.insert(partial->rows.end(), found.rows.begin(), found.rows.end());
    }
  }

  arrow::Status SearchParts(const float* query, const SearchLimits& limits, Partial* partial,
                            std::vector<std::string>* notes) const {
    for (size_t segment = 0; segment < searches_.size(); ++segment) {
      ARROW_ASSIGN_OR_RAISE(auto found, searches_[segment].Search(query, limits));
      if (found.raised_nprobes && notes != nullptr) {
        notes->push_back(
            DescribeRaisedProbes(sources_.segments[segment], *found.raised_nprobes, found.wanted));
      }
      AddPart(segment, std::move(found), partial);
    }
    ARROW_ASSIGN_OR_RAISE(auto exact, exact_tail_->Search(query, limits.capacity));
    partial->rows.insert(partial->rows.end(), exact.begin(), exact.end());
    return arrow::Status::OK();
  }

  // Refines the candidates of every query (partials[q] answers queries[q]): all of them
  // rescored in one pass, then, where a lower distance bound left a segment's candidates short,
  // that segment is asked again with twice the candidates until enough are in range.
  arrow::Status Refine(const float* const* queries, std::vector<Partial>& partials,
                       const SearchLimits& limits, std::vector<std::string>* notes) const {
    std::vector<const float*> list_queries;
    std::vector<std::vector<ScoredRow>> lists;
    std::vector<Candidates*> owners;
    for (size_t q = 0; q < partials.size(); ++q) {
      for (auto& candidates : partials[q].candidates) {
        list_queries.push_back(queries[q]);
        lists.push_back(std::move(candidates.rows));
        owners.push_back(&candidates);
      }
    }
    ARROW_RETURN_NOT_OK(refinement_->Rescore(list_queries.data(), lists));
    std::vector<size_t> short_lists;
    for (size_t i = 0; i < lists.size(); ++i) {
      owners[i]->rows = std::move(lists[i]);
      if (MoreCandidatesNeeded(owners[i]->rows, range_, limits.capacity, owners[i]->exhausted)) {
        short_lists.push_back(i);
      }
    }
    std::vector<std::string> widened(short_lists.size());
    ARROW_RETURN_NOT_OK(util::ParallelFor(
        static_cast<int64_t>(short_lists.size()), [&](int64_t begin, int64_t end) -> arrow::Status {
          for (int64_t i = begin; i < end; ++i) {
            const size_t list = short_lists[static_cast<size_t>(i)];
            ARROW_RETURN_NOT_OK(
                Widen(list_queries[list], limits, *owners[list], &widened[static_cast<size_t>(i)]));
          }
          return arrow::Status::OK();
        }));
    if (notes != nullptr) notes->insert(notes->end(), widened.begin(), widened.end());
    for (auto& partial : partials) {
      for (auto& candidates : partial.candidates) {
        partial.rows.insert(partial.rows.end(), candidates.rows.begin(), candidates.rows.end());
      }
      partial.candidates.clear();
    }
    return arrow::Status::OK();
  }

  // Asks the segment of `candidates` for twice as many until MoreCandidatesNeeded holds no
  // more; `note` says how far it went.
  arrow::Status Widen(const float* query, const SearchLimits& limits, Candidates& candidates,
                      std::string* note) const {
    SearchLimits wider = limits;
    while (MoreCandidatesNeeded(candidates.rows, range_, limits.capacity, candidates.exhausted) &&
           wider.refine_factor < INT_MAX) {
      wider.refine_factor = wider.refine_factor > INT_MAX / 2 ? INT_MAX : wider.refine_factor * 2;
      ARROW_ASSIGN_OR_RAISE(auto found, searches_[candidates.segment].Search(query, wider));
      std::vector<std::vector<ScoredRow>> list(1);
      list[0] = std::move(found.rows);
      ARROW_RETURN_NOT_OK(refinement_->Rescore(&query, list));
      candidates.rows = std::move(list[0]);
      candidates.exhausted = found.exhausted;
    }
    *note = DescribeWidenedRefinement(sources_.segments[candidates.segment], wider.refine_factor,
                                      candidates.rows.size());
    return arrow::Status::OK();
  }

  std::vector<ScoredRow> Finish(std::vector<ScoredRow> rows, const SearchLimits& limits) const {
    return MergeResults(std::move(rows), range_, static_cast<size_t>(options_.offset),
                        limits.capacity);
  }

 public:
  arrow::Result<std::vector<ScoredRow>> Search(const float* query, const NearestKnobs& knobs,
                                               Explain* explain) const {
    ARROW_RETURN_NOT_OK(CheckQuery(query, 0, 1));
    ARROW_ASSIGN_OR_RAISE(SearchLimits limits, Resolve(knobs));
    std::vector<Partial> partials(1);
    std::vector<std::string> notes;
    ARROW_RETURN_NOT_OK(SearchParts(query, limits, &partials[0], &notes));
    ARROW_RETURN_NOT_OK(Refine(&query, partials, limits, &notes));
    if (explain != nullptr) {
      for (auto& note : notes) explain->Add(std::move(note));
    }
    return Finish(std::move(partials[0].rows), limits);
  }

  arrow::Result<std::vector<std::vector<ScoredRow>>> SearchBatch(const float* queries,
                                                                 int64_t count,
                                                                 const NearestKnobs& knobs) const {
    if (count < 0) return InvalidArgument("a batch search needs a query count of at least 0");
    ARROW_ASSIGN_OR_RAISE(SearchLimits limits, Resolve(knobs));
    std::vector<const float*> pointers(static_cast<size_t>(count));
    for (int64_t q = 0; q < count; ++q) {
      pointers[static_cast<size_t>(q)] = queries + q * dim_;
      ARROW_RETURN_NOT_OK(CheckQuery(pointers[static_cast<size_t>(q)], q, count));
    }
    std::vector<Partial> partials(static_cast<size_t>(count));
    // Segment by segment, each answering all the queries at once (an IVF segment reads every
    // probed partition once per block of queries); per query, the same parts as SearchParts.
    for (size_t segment = 0; segment < searches_.size(); ++segment) {
      ARROW_ASSIGN_OR_RAISE(auto found,
                            searches_[segment].SearchBatch(pointers.data(), count, limits));
      for (size_t q = 0; q < partials.size(); ++q) {
        AddPart(segment, std::move(found[q]), &partials[q]);
      }
    }
    // The exact tail reads each of its batches once for all the queries.
    if (!exact_tail_->empty()) {
      ARROW_ASSIGN_OR_RAISE(
          auto exact, exact_tail_->SearchBatch(pointers.data(), pointers.size(), limits.capacity));
      for (size_t q = 0; q < partials.size(); ++q) {
        partials[q].rows.insert(partials[q].rows.end(), exact[q].begin(), exact[q].end());
      }
    }
    ARROW_RETURN_NOT_OK(Refine(pointers.data(), partials, limits, nullptr));
    std::vector<std::vector<ScoredRow>> results;
    results.reserve(partials.size());
    for (auto& partial : partials) results.push_back(Finish(std::move(partial.rows), limits));
    return results;
  }

  int dim() const { return dim_; }
  Metric metric() const { return sources_.metric; }

  // "searching column 'vector' of dataset D for the 10 nearest rows of 3 query vectors": the
  // operation errors name.
  std::string DescribeSearch(int64_t queries, const NearestKnobs& knobs) const {
    const int64_t k = knobs.k != -1 ? knobs.k : options_.k;
    std::string text =
        "searching " + DescribeColumn() + " for the " + std::to_string(k) + " nearest rows";
    if (queries != 1) text += " of " + std::to_string(queries) + " query vectors";
    return text;
  }
  std::string DescribeColumn() const {
    return "column '" + options_.column + "' of dataset " + dataset_.uri();
  }

  arrow::Result<std::shared_ptr<arrow::Table>> Materialize(const std::vector<ScoredRow>& rows,
                                                           Explain* explain) const {
    return result_->Materialize(rows, explain);
  }

 private:
  std::shared_ptr<const Snapshot> snapshot_;
  const dataset::Dataset& dataset_;
  const NearestOptions options_;
  DistanceRange range_;

  int column_index_ = -1;
  int dim_ = 0;
  uint64_t total_rows_ = 0;  // physical rows of the version: no search returns more
  std::vector<int> projection_;
  NearestSources sources_;
  std::shared_ptr<const expr::Filter> filter_;
  Explain prefilter_explain_;
  // Made once in Prepare and never moved: the searches and the exact tail point into them.
  std::unique_ptr<EligibleRows> eligible_;
  std::vector<VectorSegmentSearch> searches_;  // parallel to sources_.segments
  std::unique_ptr<ExactTail> exact_tail_;
  std::unique_ptr<Refinement> refinement_;
  std::unique_ptr<NearestResult> result_;
};

// Every entry point turns an exception (an allocation that fails, here or in a worker of the
// batch) into an error naming what was asked: no exception leaves the library.
arrow::Result<std::unique_ptr<PreparedNearest>> PreparedNearest::Make(
    const dataset::Dataset& dataset, const NearestOptions& options, Explain* explain) {
  return Make(Snapshot::Borrowing(dataset), options, explain);
}

arrow::Result<std::unique_ptr<PreparedNearest>> PreparedNearest::Make(
    std::shared_ptr<const Snapshot> snapshot, const NearestOptions& options, Explain* explain) {
  const util::OperationName operation("preparing a nearest-neighbour search of column '" +
                                      options.column + "' of dataset " + snapshot->dataset().uri());
  return util::GuardExceptions(
      util::CurrentOperation(), [&]() -> arrow::Result<std::unique_ptr<PreparedNearest>> {
        auto impl = std::make_unique<Impl>(std::move(snapshot), options);
        ARROW_RETURN_NOT_OK(impl->Prepare(explain));
        return std::unique_ptr<PreparedNearest>(new PreparedNearest(std::move(impl)));
      });
}

PreparedNearest::PreparedNearest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedNearest::~PreparedNearest() = default;

int PreparedNearest::dim() const { return impl_->dim(); }
index::vector::Metric PreparedNearest::metric() const { return impl_->metric(); }

arrow::Result<std::vector<ScoredRow>> PreparedNearest::Search(const float* query,
                                                              const NearestKnobs& knobs,
                                                              Explain* explain) const {
  const util::OperationName operation(impl_->DescribeSearch(1, knobs));
  return util::GuardExceptions(util::CurrentOperation(),
                               [&] { return impl_->Search(query, knobs, explain); });
}

arrow::Result<std::vector<std::vector<ScoredRow>>> PreparedNearest::SearchBatch(
    const float* queries, int64_t count, const NearestKnobs& knobs) const {
  const util::OperationName operation(impl_->DescribeSearch(count, knobs));
  return util::GuardExceptions(util::CurrentOperation(),
                               [&] { return impl_->SearchBatch(queries, count, knobs); });
}

arrow::Result<std::shared_ptr<arrow::Table>> PreparedNearest::Materialize(
    const std::vector<ScoredRow>& rows, Explain* explain) const {
  const util::OperationName operation("reading the " + std::to_string(rows.size()) +
                                      " rows found in " + impl_->DescribeColumn());
  return util::GuardExceptions(util::CurrentOperation(),
                               [&] { return impl_->Materialize(rows, explain); });
}

arrow::Result<std::shared_ptr<arrow::Table>> PreparedNearest::MaterializeBatch(
    const std::vector<std::vector<index::ScoredRow>>& found, bool numbered,
    std::vector<Explain>* explains) const {
  std::vector<std::shared_ptr<arrow::Table>> tables;
  for (size_t i = 0; i < found.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto table,
                          Materialize(found[i], explains != nullptr ? &(*explains)[i] : nullptr));
    if (numbered) {
      arrow::Int64Builder numbers;
      ARROW_RETURN_NOT_OK(numbers.AppendValues(
          std::vector<int64_t>(static_cast<size_t>(table->num_rows()), static_cast<int64_t>(i))));
      ARROW_ASSIGN_OR_RAISE(auto column, numbers.Finish());
      ARROW_ASSIGN_OR_RAISE(
          table,
          table->AddColumn(0, arrow::field(kQueryNumberColumn, arrow::int64(), /*nullable=*/false),
                           std::make_shared<arrow::ChunkedArray>(column)));
    }
    tables.push_back(std::move(table));
  }
  if (tables.empty()) return Materialize({});  // the schema of an empty result
  return arrow::ConcatenateTables(tables);
}

}  // namespace tessera::query
