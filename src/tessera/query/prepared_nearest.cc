#include "tessera/query/prepared_nearest.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/dataset/scanner.h"
#include "tessera/expr/filter.h"
#include "tessera/index/index_family.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/raw_vectors.h"
#include "tessera/index/vector/vector_column.h"
#include "tessera/index/vector_segment.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

namespace {

using index::ScoredRow;
using index::vector::BestRows;
using index::vector::Metric;
using index::vector::MetricName;

// Exact scans of a fragment read only its allowed rows when the allow-list holds fewer than
// 1 / kTakeFraction of its rows; otherwise they read the whole vector column.
constexpr uint64_t kTakeFraction = 4;

std::string ShortUuid(const std::string& uuid) { return uuid.substr(0, 8); }

std::string Available(const arrow::Schema& schema) {
  std::string names;
  for (const auto& field : schema.fields()) names += (names.empty() ? "" : ", ") + field->name();
  return names;
}

// A segment of a vector index searched for some fragments.
struct VectorSource {
  std::string index_name;
  std::string family;
  std::string segment_uuid;
  std::unique_ptr<index::SegmentReader> reader;
  std::vector<uint32_t> fragments;  // the fragments assigned to it, in manifest order
};

// A vector index on the column, with its segments that cover fragments of this version.
struct VectorIndex {
  const format::IndexDef* definition = nullptr;
  Metric metric = Metric::kL2;
  std::vector<std::unique_ptr<index::SegmentReader>> readers;
  std::vector<Roaring> covered;  // parallel to readers: live fragments each covers
};

struct FragmentState {
  int position = 0;  // in manifest().fragments()
  int source = -1;   // in sources; -1: exact scan
  std::shared_ptr<const Roaring> deleted;
  const Roaring* allowed = nullptr;  // prefilter: the live rows passing the filter
  std::string exact_reason;          // explain, for exact scans
};

}  // namespace

class PreparedNearest::Impl {
 public:
  Impl(const dataset::Dataset& dataset, const NearestOptions& options)
      : dataset_(dataset), options_(options) {}

 private:
  friend class PreparedNearest;

  // The settings of one call: `knobs` over the prepared options.
  struct Knobs {
    // offset + k, capped by the rows of the version: the rows each part of the search keeps.
    size_t capacity = 0;
    int nprobes = 1;
    int refine_factor = 1;
  };

  arrow::Status Validate() {
    const auto& schema = *dataset_.schema();
    column_index_ = schema.GetFieldIndex(options_.column);
    if (column_index_ < 0) {
      if (!schema.GetAllFieldIndices(options_.column).empty()) {
        return InvalidArgument("dataset ", dataset_.uri(), " has several columns named '",
                               options_.column, "'");
      }
      return InvalidArgument("no column '", options_.column, "' in dataset ", dataset_.uri(),
                             "; its columns are: ", Available(schema));
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

  arrow::Status FindIndexes() {
    Roaring live;
    for (const auto& fragment : dataset_.manifest().fragments()) live.add(fragment.id());
    const int32_t field_id = dataset_.field_ids()[static_cast<size_t>(column_index_)];
    for (const auto& definition : dataset_.manifest().indexes()) {
      if (definition.field_id() != field_id) continue;
      const index::IndexFamily* family = index::FindFamily(definition.family());
      if (family == nullptr) {
        notes_.push_back("index '" + definition.name() + "' not used: unknown index family '" +
                         definition.family() + "'");
        continue;
      }
      VectorIndex found;
      found.definition = &definition;
      bool is_vector = true;
      ARROW_ASSIGN_OR_RAISE(auto segments,
                            index::OpenLiveSegments(dataset_.storage(), *family, definition, live));
      for (auto& segment : segments) {
        if (segment.reader->AsVector() == nullptr) {
          is_vector = false;
          break;
        }
        found.readers.push_back(std::move(segment.reader));
        found.covered.push_back(std::move(segment.live_fragments));
      }
      if (!is_vector) continue;
      if (found.readers.empty()) {
        // No segment to search; its metric may still be the default one.
        auto metric = definition.params().find("metric");
        if (metric != definition.params().end()) {
          auto parsed = index::vector::ParseMetric(metric->second);
          if (parsed.ok() && !default_metric_) {
            default_metric_ = std::make_pair(*parsed, definition.name());
          }
        }
        continue;
      }
      found.metric = found.readers.front()->AsVector()->metric();
      if (!default_metric_) default_metric_ = std::make_pair(found.metric, definition.name());
      indexes_.push_back(std::move(found));
    }
    return arrow::Status::OK();
  }

  arrow::Status ChooseMetric() {
    if (options_.metric) {
      metric_ = *options_.metric;
      metric_origin_ = "";
    } else if (default_metric_) {
      metric_ = default_metric_->first;
      metric_origin_ = " (of index '" + default_metric_->second + "')";
    } else {
      metric_ = Metric::kL2;
      metric_origin_ = " (default)";
    }
    return arrow::Status::OK();
  }

  arrow::Status ParseFilter() {
    if (options_.filter.empty()) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(filter_, expr::Filter::Parse(options_.filter, dataset_.schema()));
    if (options_.prefilter) {
      ARROW_ASSIGN_OR_RAISE(allowed_, FindMatchingRows(dataset_, *filter_, &prefilter_explain_,
                                                       "prefilter " + filter_->ToString() + ": "));
    }
    return arrow::Status::OK();
  }

  void AssignFragments() {
    for (auto& vector_index : indexes_) {
      const std::string& name = vector_index.definition->name();
      if (vector_index.metric != metric_) {
        notes_.push_back("index '" + name + "' not used: metric " +
                         std::string(MetricName(vector_index.metric)) +
                         " differs from query metric " + std::string(MetricName(metric_)));
        for (const auto& covered : vector_index.covered) other_metric_covered_ |= covered;
        continue;
      }
      for (size_t i = 0; i < vector_index.readers.size(); ++i) {
        auto& reader = vector_index.readers[i];
        const index::VectorSegmentReader* vector = reader->AsVector();
        const std::string uuid = reader->meta().uuid();
        if (vector->metric() != metric_ || vector->dim() != dim_) {
          notes_.push_back("segment " + ShortUuid(uuid) + " of index '" + name +
                           "' not used: it holds " + std::to_string(vector->dim()) +
                           "-dimensional vectors with metric " +
                           std::string(MetricName(vector->metric())));
          continue;
        }
        VectorSource source;
        source.index_name = name;
        source.family = vector_index.definition->family();
        source.segment_uuid = uuid;
        const int source_id = static_cast<int>(sources_.size());
        // The first usable index covering a fragment (manifest order) serves it.
        for (uint32_t fragment : vector_index.covered[i]) assignment_.emplace(fragment, source_id);
        source.reader = std::move(reader);
        sources_.push_back(std::move(source));
      }
    }
  }

  arrow::Status PrepareFragments() {
    const auto& manifest = dataset_.manifest();
    for (int position = 0; position < manifest.fragments_size(); ++position) {
      const format::Fragment& fragment = manifest.fragments(position);
      FragmentState state;
      state.position = position;
      if (auto found = assignment_.find(fragment.id()); found != assignment_.end()) {
        state.source = found->second;
        sources_[static_cast<size_t>(state.source)].fragments.push_back(fragment.id());
      } else {
        state.exact_reason = other_metric_covered_.contains(fragment.id())
                                 ? "exact distance (its index has another metric)"
                                 : "exact distance (unindexed)";
      }
      if (allowed_) {
        state.allowed = &allowed_->at(fragment.id());
      } else {
        ARROW_ASSIGN_OR_RAISE(state.deleted,
                              dataset::LoadDeletionVector(*dataset_.storage(), fragment));
      }
      states_.emplace(fragment.id(), std::move(state));
    }
    if (allowed_) PreferExactForFewAllowedRows();
    return arrow::Status::OK();
  }

  // A segment whose fragments hold fewer prefiltered rows than its probed partitions would
  // scan is not searched: exact distances over those rows cost less and are exact.
  void PreferExactForFewAllowedRows() {
    const auto& manifest = dataset_.manifest();
    for (auto& source : sources_) {
      if (source.fragments.empty()) continue;
      uint64_t allowed = 0;
      uint64_t physical = 0;
      for (uint32_t id : source.fragments) {
        const FragmentState& state = states_.at(id);
        allowed += state.allowed->cardinality();
        physical += manifest.fragments(state.position).physical_rows();
      }
      const double probed = std::min(
          1.0, static_cast<double>(options_.nprobes) / source.reader->AsVector()->num_partitions());
      if (static_cast<double>(allowed) > static_cast<double>(physical) * probed) continue;
      for (uint32_t id : source.fragments) {
        FragmentState& state = states_.at(id);
        state.source = -1;
        state.exact_reason = "exact distance over the prefiltered rows (fewer than index '" +
                             source.index_name + "' would probe)";
      }
      source.fragments.clear();
    }
  }

  void ExplainSearch(Explain* explain) const {
    if (explain == nullptr) return;
    std::string header = "nearest: column '" + options_.column + "', metric " +
                         std::string(MetricName(metric_)) + metric_origin_ + ", k " +
                         std::to_string(options_.k);
    if (options_.offset > 0) header += ", offset " + std::to_string(options_.offset);
    if (options_.lower_distance || options_.upper_distance) {
      header += ", distance in [" +
                (options_.lower_distance ? std::to_string(*options_.lower_distance) : "-inf") +
                ", " +
                (options_.upper_distance ? std::to_string(*options_.upper_distance) : "inf") + ")";
    }
    explain->Add(header);
    for (const auto& line : prefilter_explain_.lines) explain->Add(line);
    for (const auto& note : notes_) explain->Add(note);
    std::vector<std::string> order;
    std::map<std::string, std::vector<uint32_t>> groups;
    for (const auto& fragment : dataset_.manifest().fragments()) {
      const FragmentState& state = states_.at(fragment.id());
      std::string description;
      if (state.source >= 0) {
        const VectorSource& source = sources_[static_cast<size_t>(state.source)];
        description = source.family + " index '" + source.index_name + "' segment " +
                      ShortUuid(source.segment_uuid) + " (metric " +
                      std::string(MetricName(metric_)) + ", nprobes " +
                      std::to_string(options_.nprobes) + RefinementNote(source) + ")";
      } else {
        description = state.exact_reason;
      }
      auto [it, inserted] = groups.try_emplace(description);
      if (inserted) order.push_back(description);
      it->second.push_back(fragment.id());
    }
    for (const auto& description : order) {
      explain->Add(DescribeFragments(groups[description]) + ": " + description);
    }
  }

  // How an approximate (quantized) segment's distances are reported, for explain.
  std::string RefinementNote(const VectorSource& source) const {
    if (!source.reader->AsVector()->approximate()) return "";
    if (options_.refine_factor <= 1) return ", approximate distances (refine_factor 1)";
    return ", k × " + std::to_string(options_.refine_factor) +
           " candidates re-ranked by exact distance";
  }

  // Whether the search may return the row at `address` of a fragment in `state`.
  static bool Accepts(const FragmentState& state, uint32_t offset) {
    if (state.allowed != nullptr) return state.allowed->contains(offset);
    return !state.deleted->contains(offset);
  }

  bool InRange(float distance) const {
    if (std::isnan(distance)) return false;
    if (options_.lower_distance && !(distance >= *options_.lower_distance)) return false;
    if (options_.upper_distance && !(distance < *options_.upper_distance)) return false;
    return true;
  }

  // Searches one segment for `query`: the capacity best rows it may return (k × refine_factor
  // candidates when it is refined, with the distance range applied after refinement).
  arrow::Status SearchSegment(const float* query_vector, int source_id, const Knobs& knobs,
                              bool refine, std::vector<ScoredRow>* rows,
                              std::vector<std::string>* notes) const {
    const VectorSource& source = sources_[static_cast<size_t>(source_id)];
    if (source.fragments.empty()) return arrow::Status::OK();
    if (allowed_) {
      const bool any = std::any_of(source.fragments.begin(), source.fragments.end(),
                                   [&](uint32_t id) { return !allowed_->at(id).isEmpty(); });
      if (!any) return arrow::Status::OK();
    }
    // A row beyond its fragment's rows means the segment's files hold wrong row addresses.
    std::optional<uint64_t> invalid_address;
    const std::function<bool(uint64_t)> accept = [this, source_id,
                                                  &invalid_address](uint64_t address) {
      auto found = states_.find(dataset::FragmentOf(address));
      if (found == states_.end() || found->second.source != source_id) return false;
      const auto& fragment = dataset_.manifest().fragments(found->second.position);
      if (dataset::OffsetOf(address) >= fragment.physical_rows()) {
        invalid_address = address;
        return false;
      }
      return Accepts(found->second, dataset::OffsetOf(address));
    };
    // The rows the search may return, an upper bound of what it can find.
    uint64_t acceptable = 0;
    for (uint32_t id : source.fragments) {
      const FragmentState& state = states_.at(id);
      acceptable += state.allowed != nullptr
                        ? state.allowed->cardinality()
                        : dataset_.manifest().fragments(state.position).physical_rows() -
                              state.deleted->cardinality();
    }
    const int partitions = source.reader->AsVector()->num_partitions();
    // Capacity × refine_factor candidates, but never more than the segment can return: the
    // product of two huge knobs (up to 2^31 each) sizes nothing.
    const uint64_t candidates =
        std::min<uint64_t>(static_cast<uint64_t>(knobs.capacity) *
                               static_cast<uint64_t>(refine ? knobs.refine_factor : 1),
                           acceptable);
    if (candidates > static_cast<uint64_t>(INT_MAX)) {
      return InvalidArgument("searching segment ", source.segment_uuid, " of index '",
                             source.index_name, "' for ", candidates,
                             " rows: one segment search returns at most ", INT_MAX,
                             " rows; lower k, offset or refine_factor");
    }
    const int nprobes = std::min(knobs.nprobes, partitions);
    index::VectorQuery query;
    query.vector = query_vector;
    query.dim = dim_;
    query.k = static_cast<int>(candidates);
    query.nprobes = nprobes;
    query.accept = &accept;
    if (!refine) {
      query.lower_distance = options_.lower_distance;
      query.upper_distance = options_.upper_distance;
    }
    const size_t wanted = static_cast<size_t>(query.k);
    while (true) {
      auto found = source.reader->AsVector()->Search(query);
      if (!found.ok()) {
        return WithContext(found.status(), "searching segment " + source.segment_uuid +
                                               " of index '" + source.index_name + "'");
      }
      if (invalid_address) {
        return Corrupt("segment ", source.segment_uuid, " of index '", source.index_name,
                       "' lists row address ", *invalid_address, " (fragment ",
                       dataset::FragmentOf(*invalid_address), ", row ",
                       dataset::OffsetOf(*invalid_address),
                       "), beyond the fragment's rows; rebuild the index (tessera index create "
                       "--replace) or drop it");
      }
      // The probed partitions may hold fewer than k acceptable rows (a selective prefilter,
      // many deletions) while others hold more: probe more partitions, so that k rows are
      // returned whenever k rows qualify.
      const bool short_of_rows = found->size() < wanted && found->size() < acceptable;
      if (!short_of_rows || query.nprobes >= partitions) {
        if (query.nprobes != nprobes && notes != nullptr) {
          notes->push_back("segment " + ShortUuid(source.segment_uuid) + " of index '" +
                           source.index_name + "': nprobes raised to " +
                           std::to_string(query.nprobes) + " to find " + std::to_string(wanted) +
                           " qualifying rows");
        }
        for (const auto& row : *found) rows->push_back(row);
        return arrow::Status::OK();
      }
      query.nprobes = query.nprobes > partitions / 2 ? partitions : query.nprobes * 2;
    }
  }

  void Score(const float* query, const index::vector::VectorRows& vectors, int64_t row,
             uint64_t address, BestRows* best) const {
    if (vectors.IsNull(row)) return;
    const float distance = index::vector::Distance(metric_, query, vectors.Row(row), dim_);
    if (InRange(distance)) best->Add({address, distance});
  }

  arrow::Status ScanExact(const float* query, uint32_t fragment_id, const FragmentState& state,
                          BestRows* best) const {
    const format::Fragment& fragment = dataset_.manifest().fragments(state.position);
    if (state.allowed != nullptr) {
      if (state.allowed->isEmpty()) return arrow::Status::OK();
      if (state.allowed->cardinality() * kTakeFraction < fragment.physical_rows()) {
        return TakeExact(query, fragment_id, *state.allowed, best);
      }
    }
    ARROW_ASSIGN_OR_RAISE(
        auto reader, dataset::FragmentReader::Open(*dataset_.storage(), fragment, dataset_.schema(),
                                                   {column_index_}));
    for (int index = 0; index < reader->num_batches(); ++index) {
      ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(index));
      dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
      ARROW_ASSIGN_OR_RAISE(auto vectors, index::vector::VectorRows::Make(batch->column(0)));
      const uint64_t first = static_cast<uint64_t>(index) * reader->rows_per_batch();
      for (int64_t row = 0; row < vectors.size(); ++row) {
        const auto offset = static_cast<uint32_t>(first + static_cast<uint64_t>(row));
        if (!Accepts(state, offset)) continue;
        Score(query, vectors, row, dataset::MakeRowAddress(fragment_id, offset), best);
      }
    }
    return arrow::Status::OK();
  }

  arrow::Status TakeExact(const float* query, uint32_t fragment_id, const Roaring& allowed,
                          BestRows* best) const {
    std::vector<uint64_t> addresses;
    addresses.reserve(allowed.cardinality());
    for (uint32_t offset : allowed)
      addresses.push_back(dataset::MakeRowAddress(fragment_id, offset));
    ARROW_ASSIGN_OR_RAISE(auto table, dataset_.Take(addresses, {options_.column}));
    ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
    ARROW_ASSIGN_OR_RAISE(auto vectors, index::vector::VectorRows::Make(batch->column(0)));
    for (int64_t row = 0; row < vectors.size(); ++row) {
      Score(query, vectors, row, addresses[static_cast<size_t>(row)], best);
    }
    return arrow::Status::OK();
  }

  arrow::Result<std::shared_ptr<arrow::Table>> Materialize(const std::vector<ScoredRow>& rows,
                                                           Explain* explain) const {
    const auto& schema = *dataset_.schema();
    arrow::FieldVector fields;
    std::vector<std::string> take_columns;
    for (int index : projection_) {
      fields.push_back(schema.field(index));
      take_columns.push_back(schema.field(index)->name());
    }
    fields.push_back(arrow::field(kDistanceColumn, arrow::float32(), /*nullable=*/false));
    if (options_.with_row_address) {
      fields.push_back(arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false));
    }
    auto output = arrow::schema(std::move(fields));
    const bool postfilter = filter_ != nullptr && !options_.prefilter;
    if (postfilter) {
      for (const auto& name : filter_->referenced_columns()) {
        if (std::find(take_columns.begin(), take_columns.end(), name) == take_columns.end()) {
          take_columns.push_back(name);
        }
      }
    }
    if (rows.empty()) {
      if (postfilter) ExplainPostfilter(0, 0, explain);
      return arrow::Table::MakeEmpty(output);
    }

    std::vector<uint64_t> addresses;
    arrow::FloatBuilder distances;
    ARROW_RETURN_NOT_OK(distances.Reserve(static_cast<int64_t>(rows.size())));
    for (const auto& row : rows) {
      addresses.push_back(row.row_address);
      distances.UnsafeAppend(row.distance);
    }
    ARROW_ASSIGN_OR_RAISE(auto distance_array, distances.Finish());
    arrow::UInt64Builder address_builder;
    ARROW_RETURN_NOT_OK(address_builder.AppendValues(addresses));
    ARROW_ASSIGN_OR_RAISE(auto address_array, address_builder.Finish());

    ARROW_ASSIGN_OR_RAISE(auto table, dataset_.Take(addresses, take_columns));
    ARROW_ASSIGN_OR_RAISE(auto taken, table->CombineChunksToBatch());
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int index : projection_)
      columns.push_back(taken->GetColumnByName(schema.field(index)->name()));
    columns.push_back(distance_array);
    if (options_.with_row_address) columns.push_back(address_array);
    auto batch = arrow::RecordBatch::Make(output, static_cast<int64_t>(rows.size()), columns);
    if (postfilter) {
      ARROW_ASSIGN_OR_RAISE(auto selected, filter_->Select(*taken));
      ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, selected));
      batch = kept.record_batch();
      ExplainPostfilter(rows.size(), static_cast<size_t>(batch->num_rows()), explain);
    }
    return arrow::Table::FromRecordBatches(output, {batch});
  }

  void ExplainPostfilter(size_t searched, size_t kept, Explain* explain) const {
    if (explain == nullptr) return;
    explain->Add("postfilter " + filter_->ToString() + ": applied to the " +
                 std::to_string(searched) + " rows found, " + std::to_string(kept) +
                 " kept (a postfilter may return fewer than k rows)");
  }

  // Huge k, offset or refine_factor are legal: nothing is sized by them beyond the rows the
  // version holds (capacity here, candidates per segment in SearchSegment), so k = 2^31 - 1 on
  // a small dataset returns all its rows.
  arrow::Result<Knobs> Resolve(const NearestKnobs& knobs) const {
    const int64_t k = knobs.k != -1 ? knobs.k : options_.k;
    if (k < 1) return InvalidArgument("k must be at least 1, got ", k);
    Knobs resolved;
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

  // Whether candidates of `source` are re-ranked by exact distance under `knobs`.
  bool Refines(const VectorSource& source, const Knobs& knobs) const {
    return knobs.refine_factor > 1 && source.reader->AsVector()->approximate();
  }

  // One query's answer so far: rows with final distances, and candidates of approximate
  // segments that still await re-ranking by exact distance.
  struct Partial {
    std::vector<ScoredRow> rows;
    std::vector<ScoredRow> candidates;
  };

  arrow::Status SearchParts(const float* query, const Knobs& knobs, Partial* out,
                            std::vector<std::string>* notes) const {
    for (size_t source = 0; source < sources_.size(); ++source) {
      const bool refine = Refines(sources_[source], knobs);
      ARROW_RETURN_NOT_OK(SearchSegment(query, static_cast<int>(source), knobs, refine,
                                        refine ? &out->candidates : &out->rows, notes));
    }
    BestRows exact(knobs.capacity);
    for (const auto& [fragment, state] : states_) {
      if (state.source < 0) ARROW_RETURN_NOT_OK(ScanExact(query, fragment, state, &exact));
    }
    for (const auto& row : std::move(exact).Take()) out->rows.push_back(row);
    return arrow::Status::OK();
  }

  // Re-ranks the candidates of every query by exact distance (in range only). Candidate rows
  // are visited in address order, the union over the queries: each raw vector is read once.
  arrow::Status Refine(const float* const* queries, std::vector<Partial>& partials) const {
    struct Pair {
      uint64_t address;
      uint32_t query;
      float distance;
    };
    std::vector<Pair> pairs;
    for (size_t q = 0; q < partials.size(); ++q) {
      for (const auto& candidate : partials[q].candidates) {
        pairs.push_back({candidate.row_address, static_cast<uint32_t>(q), 0.0f});
      }
      partials[q].candidates.clear();
    }
    if (pairs.empty()) return arrow::Status::OK();
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
      return a.address < b.address || (a.address == b.address && a.query < b.query);
    });
    ARROW_RETURN_NOT_OK(util::ParallelFor(
        static_cast<int64_t>(pairs.size()),
        [&](int64_t begin, int64_t end) -> arrow::Status {
          std::vector<float> scratch(static_cast<size_t>(dim_));
          // Rows are far apart in memory: the row a few pairs ahead is requested early.
          constexpr int64_t kAhead = 4;
          for (int64_t i = begin; i < std::min(end, begin + kAhead); ++i) {
            raw_vectors_->Prefetch(pairs[static_cast<size_t>(i)].address);
          }
          for (int64_t i = begin; i < end; ++i) {
            if (i + kAhead < end)
              raw_vectors_->Prefetch(pairs[static_cast<size_t>(i + kAhead)].address);
            Pair& pair = pairs[static_cast<size_t>(i)];
            ARROW_ASSIGN_OR_RAISE(const float* raw,
                                  raw_vectors_->Find(pair.address, scratch.data()));
            if (raw == nullptr) {
              return Corrupt("a vector index of column '", options_.column, "' of dataset ",
                             dataset_.uri(), " lists row ", dataset::FragmentOf(pair.address), ":",
                             dataset::OffsetOf(pair.address),
                             ", which has no vector; rebuild the index");
            }
            pair.distance = index::vector::Distance(metric_, queries[pair.query], raw, dim_);
          }
          return arrow::Status::OK();
        },
        /*min_chunk=*/512));
    for (const auto& pair : pairs) {
      if (InRange(pair.distance))
        partials[pair.query].rows.push_back({pair.address, pair.distance});
    }
    return arrow::Status::OK();
  }

  // The rows [offset, offset + k) of a finished query.
  std::vector<ScoredRow> Finish(Partial& partial, const Knobs& knobs) const {
    std::vector<ScoredRow>& rows = partial.rows;
    std::sort(rows.begin(), rows.end(), index::vector::NearerFirst());
    const size_t begin = std::min(rows.size(), static_cast<size_t>(options_.offset));
    const size_t end = std::min(rows.size(), knobs.capacity);
    return std::vector<ScoredRow>(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                  rows.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
  }

 public:
  arrow::Result<std::vector<ScoredRow>> Search(const float* query, const NearestKnobs& knobs,
                                               Explain* explain) const {
    ARROW_RETURN_NOT_OK(CheckQuery(query, 0, 1));
    ARROW_ASSIGN_OR_RAISE(Knobs resolved, Resolve(knobs));
    std::vector<Partial> partials(1);
    std::vector<std::string> notes;
    ARROW_RETURN_NOT_OK(SearchParts(query, resolved, &partials[0], &notes));
    ARROW_RETURN_NOT_OK(Refine(&query, partials));
    if (explain != nullptr) {
      for (auto& note : notes) explain->Add(std::move(note));
    }
    return Finish(partials[0], resolved);
  }

  arrow::Result<std::vector<std::vector<ScoredRow>>> SearchBatch(const float* queries,
                                                                 int64_t count,
                                                                 const NearestKnobs& knobs) const {
    if (count < 0) return InvalidArgument("a batch search needs a query count of at least 0");
    ARROW_ASSIGN_OR_RAISE(Knobs resolved, Resolve(knobs));
    std::vector<const float*> pointers(static_cast<size_t>(count));
    for (int64_t q = 0; q < count; ++q) {
      pointers[static_cast<size_t>(q)] = queries + q * dim_;
      ARROW_RETURN_NOT_OK(CheckQuery(pointers[static_cast<size_t>(q)], q, count));
    }
    std::vector<Partial> partials(static_cast<size_t>(count));
    ARROW_RETURN_NOT_OK(util::ParallelFor(count, [&](int64_t begin, int64_t end) -> arrow::Status {
      for (int64_t q = begin; q < end; ++q) {
        ARROW_RETURN_NOT_OK(SearchParts(pointers[static_cast<size_t>(q)], resolved,
                                        &partials[static_cast<size_t>(q)], nullptr));
      }
      return arrow::Status::OK();
    }));
    ARROW_RETURN_NOT_OK(Refine(pointers.data(), partials));
    std::vector<std::vector<ScoredRow>> results;
    results.reserve(partials.size());
    for (auto& partial : partials) results.push_back(Finish(partial, resolved));
    return results;
  }

  arrow::Status Prepare(Explain* explain) {
    ARROW_RETURN_NOT_OK(Validate());
    ARROW_RETURN_NOT_OK(FindIndexes());
    ARROW_RETURN_NOT_OK(ChooseMetric());
    ARROW_RETURN_NOT_OK(ParseFilter());
    AssignFragments();
    ARROW_RETURN_NOT_OK(PrepareFragments());
    ExplainSearch(explain);
    // Raw vectors of the fragments that approximate segments serve, for refinement.
    std::vector<format::Fragment> refinable;
    for (const auto& source : sources_) {
      if (!source.reader->AsVector()->approximate()) continue;
      for (uint32_t id : source.fragments) {
        refinable.push_back(dataset_.manifest().fragments(states_.at(id).position));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto raw,
                          index::vector::RawVectors::Open(*dataset_.storage(), dataset_.schema(),
                                                          column_index_, refinable));
    raw_vectors_ = std::make_unique<index::vector::RawVectors>(std::move(raw));
    return arrow::Status::OK();
  }

  int dim() const { return dim_; }
  Metric metric() const { return metric_; }

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

 private:
  const dataset::Dataset& dataset_;
  const NearestOptions options_;

  int column_index_ = -1;
  int dim_ = 0;
  uint64_t total_rows_ = 0;  // physical rows of the version: no search returns more
  std::vector<int> projection_;
  Metric metric_ = Metric::kL2;
  std::string metric_origin_;
  std::optional<std::pair<Metric, std::string>> default_metric_;
  std::vector<std::string> notes_;
  std::vector<VectorIndex> indexes_;
  std::vector<VectorSource> sources_;
  std::unordered_map<uint32_t, int> assignment_;  // fragment id → source
  Roaring other_metric_covered_;
  std::shared_ptr<const expr::Filter> filter_;
  std::optional<RowsByFragment> allowed_;
  Explain prefilter_explain_;
  std::unordered_map<uint32_t, FragmentState> states_;
  std::unique_ptr<index::vector::RawVectors> raw_vectors_;
};

// Every entry point turns an exception (an allocation that fails, here or in a worker of the
// batch) into an error naming what was asked: no exception leaves the library.
arrow::Result<std::unique_ptr<PreparedNearest>> PreparedNearest::Make(
    const dataset::Dataset& dataset, const NearestOptions& options, Explain* explain) {
  const util::OperationName operation("preparing a nearest-neighbour search of column '" +
                                      options.column + "' of dataset " + dataset.uri());
  return util::GuardExceptions(
      util::CurrentOperation(), [&]() -> arrow::Result<std::unique_ptr<PreparedNearest>> {
        auto impl = std::make_unique<Impl>(dataset, options);
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

}  // namespace tessera::query
