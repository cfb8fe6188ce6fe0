#include "tessera/query/filtered_read.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/candidate_batches.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/row_matcher.h"
#include "tessera/dataset/scanner.h"
#include "tessera/dataset/take.h"
#include "tessera/query/filter_plan.h"
#include "tessera/query/segment_count.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

namespace {

// Chunks of candidates read at once per thread, without a limit.
constexpr int kChunksPerThread = 4;

// Without a limit, a chunk of candidates holds at least this many rows (but the fragment's
// last). With a limit, the first chunk holds the rows still wanted when exact, else this many
// and at least twice the rows still wanted (some fail the recheck), up to kReadBatchRows; the
// next ones double.
constexpr uint64_t kMinimumChunk = 256;

// A fragment with at least 1 / kDenseFraction of its rows as candidates has its batches verified
// whole rather than row by row (bench/filtered_read: row-by-row verification made a 1 %
// selective read slower than a scan).
constexpr uint64_t kDenseFraction = 256;

// Many candidates touch most blocks of the batches they are in: verifying those batches whole,
// in a few long ranges, is cheaper than row by row.
bool VerifyWholeBatches(const Roaring& candidates, const format::Fragment& fragment) {
  return candidates.cardinality() * kDenseFraction >= fragment.physical_rows();
}

// A read's filter, parsed and planned once.
struct PlannedFilter {
  std::shared_ptr<const expr::Filter> filter;  // null: no filter
  std::optional<bool> constant;                // the filter is constant: keeps every row or none
  FilterPlan plan;                             // when the filter is neither absent nor constant
  bool planned() const { return filter != nullptr && !constant; }
};

std::vector<uint32_t> AllFragmentIds(const Snapshot& snapshot) {
  std::vector<uint32_t> ids;
  for (const auto& fragment : snapshot.manifest().fragments()) ids.push_back(fragment.id());
  return ids;
}

// Plans `filter` (null: none); explains the plan, or says that every fragment is
// `constant_action` when the filter is absent or constant.
arrow::Result<PlannedFilter> PlanParsed(const Snapshot& snapshot,
                                        std::shared_ptr<const expr::Filter> filter,
                                        PlanPurpose purpose, std::string_view constant_action,
                                        Explain* explain, std::string_view prefix) {
  PlannedFilter planned;
  planned.filter = std::move(filter);
  const auto explain_all = [&](std::string_view action, const std::string& why) {
    if (explain == nullptr || snapshot.manifest().fragments_size() == 0) return;
    explain->Add(std::string(prefix) + DescribeFragments(AllFragmentIds(snapshot)) + ": " +
                 std::string(action) + " (" + why + ")");
  };
  if (planned.filter == nullptr) {
    explain_all(constant_action, "no filter");
    return planned;
  }
  const expr::Node& root = planned.filter->root();
  if (root.kind() == expr::NodeKind::kLiteral) {
    const auto& value = root.As<expr::Literal>().value();
    planned.constant = value->is_valid && value->type->id() == arrow::Type::BOOL &&
                       static_cast<const arrow::BooleanScalar&>(*value).value;
    explain_all(*planned.constant ? constant_action : "no row",
                "constant filter " + planned.filter->ToString());
    return planned;
  }
  ARROW_ASSIGN_OR_RAISE(planned.plan, PlanFilter(snapshot, *planned.filter, purpose));
  ExplainFilterPlan(planned.plan, prefix, explain);
  return planned;
}

// Parses `text` (empty: no filter) against the snapshot's schema and plans it.
arrow::Result<PlannedFilter> PlanRead(const Snapshot& snapshot, std::string_view text,
                                      PlanPurpose purpose, std::string_view constant_action,
                                      Explain* explain) {
  std::shared_ptr<const expr::Filter> filter;
  if (!text.empty()) {
    ARROW_ASSIGN_OR_RAISE(filter, expr::Filter::Parse(text, snapshot.schema()));
  }
  return PlanParsed(snapshot, std::move(filter), purpose, constant_action, explain, "");
}

// The rows of each record batch of `fragment`'s data file; 0 when the manifest names no single
// data file (opening it then reports the damage).
uint64_t RowsPerBatch(const format::Fragment& fragment) {
  return fragment.files_size() == 1 ? fragment.files(0).rows_per_batch() : 0;
}

std::vector<uint32_t> OffsetsOf(const Roaring& rows) {
  std::vector<uint32_t> offsets(rows.cardinality());
  rows.toUint32Array(offsets.data());
  return offsets;
}

// Indices in `schema` of the columns `filter` reads, added to `columns` if missing.
arrow::Result<std::vector<int>> WithFilterColumns(const arrow::Schema& schema,
                                                  const expr::Filter& filter,
                                                  std::vector<int> columns) {
  ARROW_ASSIGN_OR_RAISE(auto read, dataset::FilterColumns(schema, filter));
  for (int column : read) {
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
      columns.push_back(column);
    }
  }
  return columns;
}

// The snapshot's reader of `fragment` decoding the columns `filter` needs.
arrow::Result<std::shared_ptr<const dataset::FragmentReader>> FilterReader(
    const Snapshot& snapshot, const expr::Filter& filter, const format::Fragment& fragment) {
  ARROW_ASSIGN_OR_RAISE(auto columns, dataset::ColumnsToMatch(*snapshot.schema(), filter));
  return snapshot.open_fragments().Get(fragment, columns);
}

// The live rows of one fragment that pass the filter, given the fragment's deletion vector
// (possibly newer than the plan's, when a delete is re-planned after a concurrent one).
arrow::Result<Roaring> MatchesOf(const Snapshot& snapshot, const PlannedFilter& planned,
                                 const format::Fragment& fragment, const FragmentFilterPlan* plan,
                                 const Roaring& deleted) {
  if (planned.constant) {
    Roaring rows;
    if (*planned.constant) {
      rows.addRange(0, fragment.physical_rows());
      rows -= deleted;
    }
    return rows;
  }
  if (plan == nullptr || !plan->candidates) {
    ARROW_ASSIGN_OR_RAISE(auto reader, FilterReader(snapshot, *planned.filter, fragment));
    return dataset::FindMatchingRows(dataset::FragmentToMatch{reader.get(), &deleted},
                                     *planned.filter);
  }
  Roaring candidates = *plan->candidates - deleted;
  if (plan->exact || candidates.isEmpty()) return candidates;
  ARROW_ASSIGN_OR_RAISE(auto reader, FilterReader(snapshot, *planned.filter, fragment));
  if (dataset::CandidatesFillTheirBatches(candidates, reader->rows_per_batch())) {
    return dataset::FindMatchingRows(dataset::FragmentToMatch{reader.get(), &deleted, &candidates},
                                     *planned.filter);
  }
  const std::vector<uint32_t> offsets = OffsetsOf(candidates);
  const bool whole_batches = VerifyWholeBatches(candidates, fragment);
  Roaring matches;
  for (size_t begin = 0; begin < offsets.size(); begin += kReadBatchRows) {
    const size_t end = std::min<size_t>(offsets.size(), begin + kReadBatchRows);
    const std::vector<uint32_t> chunk(offsets.begin() + static_cast<std::ptrdiff_t>(begin),
                                      offsets.begin() + static_cast<std::ptrdiff_t>(end));
    ARROW_ASSIGN_OR_RAISE(auto batch, dataset::TakeFromFragment(*reader, chunk, whole_batches));
    ARROW_ASSIGN_OR_RAISE(auto selected, planned.filter->Select(*batch));
    for (int64_t row = 0; row < selected->length(); ++row) {
      if (selected->Value(row)) matches.add(chunk[static_cast<size_t>(row)]);
    }
  }
  return matches;
}

const FragmentFilterPlan* PlanOf(const PlannedFilter& planned, uint32_t fragment_id) {
  for (const auto& plan : planned.plan.fragments) {
    if (plan.fragment_id == fragment_id) return &plan;
  }
  return nullptr;
}

arrow::Result<std::shared_ptr<arrow::Array>> AddressArray(uint32_t fragment,
                                                          const std::vector<uint32_t>& offsets) {
  arrow::UInt64Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(offsets.size())));
  for (uint32_t offset : offsets) builder.UnsafeAppend(dataset::MakeRowAddress(fragment, offset));
  return builder.Finish();
}

// The stream of Read(): plan positions in manifest order, each either a run of scanned
// fragments (a dataset scanner over them) or one index-answered fragment (its candidates read
// by row address in chunks).
class FilteredReader final : public arrow::RecordBatchReader {
 public:
  FilteredReader(std::shared_ptr<const Snapshot> snapshot, dataset::ScanOptions options,
                 std::shared_ptr<arrow::Schema> output, PlannedFilter planned,
                 std::vector<int> output_columns)
      : snapshot_(std::move(snapshot)),
        options_(std::move(options)),
        output_(std::move(output)),
        planned_(std::move(planned)),
        output_columns_(std::move(output_columns)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return output_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (!Full()) {
      if (scanner_ != nullptr) {
        std::shared_ptr<arrow::RecordBatch> batch;
        ARROW_RETURN_NOT_OK(scanner_->ReadNext(&batch));
        if (batch == nullptr) {
          scanner_.reset();
          continue;
        }
        if (Emit(std::move(batch), out)) return arrow::Status::OK();
        continue;
      }
      if (CandidatesLeft()) {
        ARROW_ASSIGN_OR_RAISE(auto batch, ReadCandidates());
        if (Emit(std::move(batch), out)) return arrow::Status::OK();
        continue;
      }
      if (!started_) {
        started_ = true;
        if (!planned_.planned()) {
          if (planned_.constant == false) break;
          ARROW_RETURN_NOT_OK(StartScan(0, snapshot_->manifest().fragments_size()));
          position_ = static_cast<size_t>(snapshot_->manifest().fragments_size());
          continue;
        }
      }
      if (!planned_.planned() || position_ >= planned_.plan.fragments.size()) break;
      ARROW_RETURN_NOT_OK(StartNext());
    }
    return arrow::Status::OK();
  }

 private:
  bool Full() const { return options_.limit && returned_ >= *options_.limit; }
  std::optional<uint64_t> Room() const {
    if (!options_.limit) return std::nullopt;
    return *options_.limit - returned_;
  }

  // Cuts `batch` to the limit; true when it has rows to return.
  bool Emit(std::shared_ptr<arrow::RecordBatch> batch, std::shared_ptr<arrow::RecordBatch>* out) {
    if (const auto room = Room(); room && static_cast<uint64_t>(batch->num_rows()) > *room) {
      batch = batch->Slice(0, static_cast<int64_t>(*room));
    }
    if (batch->num_rows() == 0) return false;
    returned_ += static_cast<uint64_t>(batch->num_rows());
    *out = std::move(batch);
    return true;
  }

  // The next plan position: a run of fragments no index answers, or one that an index does.
  arrow::Status StartNext() {
    const auto& fragments = planned_.plan.fragments;
    const FragmentFilterPlan& plan = fragments[position_];
    if (!plan.candidates) {
      size_t end = position_;
      while (end < fragments.size() && !fragments[end].candidates) ++end;
      ARROW_RETURN_NOT_OK(StartScan(static_cast<int>(position_), static_cast<int>(end)));
      position_ = end;
      return arrow::Status::OK();
    }
    ++position_;
    if (plan.candidates->isEmpty()) return arrow::Status::OK();
    const format::Fragment& fragment = snapshot_->manifest().fragments(plan.position);
    if (plan.exact && plan.candidates->cardinality() ==
                          fragment.physical_rows() - fragment.deletion().num_deleted()) {
      // Every live row passes (fragment statistics said so): a scan without the filter reads
      // them as slices of the file, cheaper than taking each by address.
      return StartScan(static_cast<int>(position_) - 1, static_cast<int>(position_),
                       /*unfiltered=*/true);
    }
    // Candidates that fill their batches are read by filtering those batches: their rows come
    // as slices of the file, where taking them one by one would copy each. Not with a limit
    // (a take reads about the rows returned) nor for row addresses alone of an exact answer
    // (they need no data file).
    const bool addresses_alone = plan.exact && output_columns_.empty();
    if (!Room() && !addresses_alone &&
        dataset::CandidatesFillTheirBatches(*plan.candidates, RowsPerBatch(fragment))) {
      return StartScan(static_cast<int>(position_) - 1, static_cast<int>(position_),
                       /*unfiltered=*/false, &*plan.candidates);
    }
    fragment_id_ = fragment.id();
    exact_ = plan.exact;
    std::vector<int> columns = output_columns_;
    if (!exact_) {
      ARROW_ASSIGN_OR_RAISE(
          columns, WithFilterColumns(*snapshot_->schema(), *planned_.filter, std::move(columns)));
    }
    fragment_reader_.reset();
    if (!columns.empty()) {
      std::sort(columns.begin(), columns.end());
      ARROW_ASSIGN_OR_RAISE(fragment_reader_, snapshot_->open_fragments().Get(fragment, columns));
    }
    whole_batches_ = VerifyWholeBatches(*plan.candidates, fragment);
    offsets_ = OffsetsOf(*plan.candidates);
    next_offset_ = 0;
    if (const auto room = Room()) {
      chunk_ = std::min(kReadBatchRows, exact_ ? *room : std::max(kMinimumChunk, 2 * *room));
    } else {
      // Without a limit the fragment's candidates are split evenly over the window's chunks, so
      // that every thread gets its share (one fragment's 10,000 candidates were one chunk of
      // 8,192 and one of 1,808: two threads sped the read up by 1.2x).
      const uint64_t chunks = static_cast<uint64_t>(kChunksPerThread * util::NumThreads());
      chunk_ = std::clamp<uint64_t>((offsets_.size() + chunks - 1) / chunks, kMinimumChunk,
                                    kReadBatchRows);
    }
    return arrow::Status::OK();
  }

  // Plan positions [begin, end), scanned as Dataset::Scan scans them (without the filter when
  // `unfiltered`: every live row passes; only the batches holding `candidates` when given, for
  // one position).
  arrow::Status StartScan(int begin, int end, bool unfiltered = false,
                          const Roaring* candidates = nullptr) {
    const format::Manifest& manifest = snapshot_->manifest();
    std::shared_ptr<const format::Manifest> part;
    if (begin == 0 && end == manifest.fragments_size()) {
      part = std::shared_ptr<const format::Manifest>(snapshot_, &manifest);
    } else {
      auto subset = std::make_shared<format::Manifest>();
      subset->set_format_version(manifest.format_version());
      subset->set_version(manifest.version());
      // A part of the manifest is only ever scanned for a plan.
      for (int i = begin; i < end; ++i) {
        *subset->add_fragments() = manifest.fragments(planned_.plan.fragments[i].position);
      }
      part = std::move(subset);
    }
    dataset::ScanOptions options = options_;
    options.limit = Room();
    if (unfiltered) options.filter.clear();
    dataset::ScanContext context{&snapshot_->deletions(), &snapshot_->open_fragments(), {}};
    if (candidates != nullptr) context.candidates.push_back(candidates);
    ARROW_ASSIGN_OR_RAISE(
        scanner_, dataset::MakeScanner(snapshot_->storage(), std::move(part), snapshot_->schema(),
                                       options, std::move(context)));
    return arrow::Status::OK();
  }

  // The next chunk of the current fragment's candidates, projected, rechecked unless exact.
  // Without a limit, a window of chunks is read in parallel (util::ParallelFor) and returned in
  // order, each chunk keeping its own result, so that errors surface in order too.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadCandidates() {
    if (next_ready_ >= ready_.size()) {
      const int window =
          Room() || util::NumThreads() == 1 ? 1 : kChunksPerThread * util::NumThreads();
      std::vector<std::pair<size_t, size_t>> chunks;
      while (static_cast<int>(chunks.size()) < window && next_offset_ < offsets_.size()) {
        const size_t end = std::min<size_t>(offsets_.size(), next_offset_ + chunk_);
        chunks.emplace_back(next_offset_, end);
        next_offset_ = end;
        if (Room()) chunk_ = std::min(kReadBatchRows, 2 * chunk_);
      }
      using Batch = std::shared_ptr<arrow::RecordBatch>;
      ARROW_ASSIGN_OR_RAISE(
          ready_, util::ParallelResults<Batch>(
                      static_cast<int64_t>(chunks.size()), [&](int64_t i) -> arrow::Result<Batch> {
                        return ReadChunk(chunks[static_cast<size_t>(i)].first,
                                         chunks[static_cast<size_t>(i)].second);
                      }));
      next_ready_ = 0;
    }
    return std::move(ready_[next_ready_++]);
  }

  bool CandidatesLeft() const {
    return next_ready_ < ready_.size() || next_offset_ < offsets_.size();
  }

  // Candidates [first, last) of offsets_, projected, rechecked unless exact.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadChunk(size_t first, size_t last) const {
    const std::vector<uint32_t> chunk(offsets_.begin() + static_cast<std::ptrdiff_t>(first),
                                      offsets_.begin() + static_cast<std::ptrdiff_t>(last));
    std::shared_ptr<arrow::RecordBatch> taken;
    if (fragment_reader_ != nullptr) {
      ARROW_ASSIGN_OR_RAISE(taken,
                            dataset::TakeFromFragment(*fragment_reader_, chunk, whole_batches_));
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& field : output_->fields()) {
      if (field->name() == dataset::kRowAddressColumn) {
        ARROW_ASSIGN_OR_RAISE(auto addresses, AddressArray(fragment_id_, chunk));
        columns.push_back(std::move(addresses));
      } else {
        columns.push_back(taken->GetColumnByName(field->name()));
      }
    }
    auto projected =
        arrow::RecordBatch::Make(output_, static_cast<int64_t>(chunk.size()), std::move(columns));
    if (exact_) return projected;
    ARROW_ASSIGN_OR_RAISE(auto selected, planned_.filter->Select(*taken));
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(projected, selected));
    return kept.record_batch();
  }

  std::shared_ptr<const Snapshot> snapshot_;
  dataset::ScanOptions options_;
  std::shared_ptr<arrow::Schema> output_;
  PlannedFilter planned_;
  std::vector<int> output_columns_;  // schema indices of the output's data columns
  bool started_ = false;
  size_t position_ = 0;  // next plan position
  uint64_t returned_ = 0;
  std::shared_ptr<arrow::RecordBatchReader> scanner_;
  // The index-answered fragment being read.
  uint32_t fragment_id_ = 0;
  bool exact_ = false;
  bool whole_batches_ = false;  // verify whole batches, not the rows taken
  std::vector<uint32_t> offsets_;
  size_t next_offset_ = 0;  // the first candidate not yet in a window
  uint64_t chunk_ = kReadBatchRows;
  std::vector<arrow::Result<std::shared_ptr<arrow::RecordBatch>>> ready_;  // the window read
  size_t next_ready_ = 0;
  std::shared_ptr<const dataset::FragmentReader> fragment_reader_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> Read(
    std::shared_ptr<const Snapshot> snapshot, const dataset::ScanOptions& options,
    Explain* explain) {
  ARROW_ASSIGN_OR_RAISE(auto output, dataset::ScanOutputSchema(*snapshot->schema(), options));
  ARROW_ASSIGN_OR_RAISE(auto output_columns,
                        dataset::ProjectedColumns(*snapshot->schema(), options));
  ARROW_ASSIGN_OR_RAISE(PlannedFilter planned, PlanRead(*snapshot, options.filter,
                                                        PlanPurpose::kReadRows, "scan", explain));
  return std::make_shared<FilteredReader>(std::move(snapshot), options, std::move(output),
                                          std::move(planned), std::move(output_columns));
}

arrow::Result<uint64_t> Count(const Snapshot& snapshot, std::string_view filter, Explain* explain) {
  std::shared_ptr<const expr::Filter> parsed;
  if (!filter.empty()) {
    ARROW_ASSIGN_OR_RAISE(parsed, expr::Filter::Parse(filter, snapshot.schema()));
    ARROW_ASSIGN_OR_RAISE(auto counted, CountFromSegments(snapshot, *parsed, explain));
    if (counted) return *counted;
  }
  ARROW_ASSIGN_OR_RAISE(PlannedFilter planned,
                        PlanParsed(snapshot, std::move(parsed), PlanPurpose::kFindRows,
                                   "counted from metadata", explain, ""));
  if (!planned.planned()) return planned.constant == false ? 0 : snapshot.dataset().CountRows();
  uint64_t rows = 0;
  // Fragments no index answers are counted together, their batches in parallel.
  std::vector<dataset::FragmentToMatch> to_scan;
  std::vector<std::shared_ptr<const dataset::FragmentReader>> readers;  // held for to_scan
  for (const auto& plan : planned.plan.fragments) {
    if (plan.candidates && plan.exact) {
      rows += plan.candidates->cardinality();  // deletions are already subtracted
      continue;
    }
    const format::Fragment& fragment = snapshot.manifest().fragments(plan.position);
    // Candidates to recheck that fill their batches: those batches are evaluated with the rest.
    if (!plan.candidates ||
        dataset::CandidatesFillTheirBatches(*plan.candidates, RowsPerBatch(fragment))) {
      ARROW_ASSIGN_OR_RAISE(auto reader, FilterReader(snapshot, *planned.filter, fragment));
      to_scan.push_back(
          {reader.get(), &reader->deletions(), plan.candidates ? &*plan.candidates : nullptr});
      readers.push_back(std::move(reader));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto deleted, snapshot.deletions().Get(fragment));
    ARROW_ASSIGN_OR_RAISE(Roaring matches, MatchesOf(snapshot, planned, fragment, &plan, *deleted));
    rows += matches.cardinality();
  }
  if (!to_scan.empty()) {
    ARROW_ASSIGN_OR_RAISE(uint64_t counted, dataset::CountMatchingRows(to_scan, *planned.filter));
    rows += counted;
  }
  return rows;
}

arrow::Result<std::shared_ptr<dataset::Dataset>> Delete(const Snapshot& snapshot,
                                                        std::string_view filter,
                                                        const dataset::WriteOptions& options,
                                                        Explain* explain) {
  if (filter.empty()) {
    return InvalidArgument("delete needs a filter; use 'true' to delete every row");
  }
  ARROW_ASSIGN_OR_RAISE(PlannedFilter planned,
                        PlanRead(snapshot, filter, PlanPurpose::kFindRows, "deleted", explain));
  dataset::RowFinder finder = [&](const format::Fragment& fragment,
                                  const Roaring& deleted) -> arrow::Result<Roaring> {
    return MatchesOf(snapshot, planned, fragment, PlanOf(planned, fragment.id()), deleted);
  };
  return snapshot.dataset().Delete(filter, std::move(finder), options, &snapshot.deletions());
}

arrow::Result<RowsByFragment> FindMatchingRows(const Snapshot& snapshot, const expr::Filter& filter,
                                               Explain* explain, std::string_view explain_prefix) {
  // The caller's filter, borrowed for the call.
  std::shared_ptr<const expr::Filter> borrowed(std::shared_ptr<const expr::Filter>(), &filter);
  ARROW_ASSIGN_OR_RAISE(PlannedFilter planned,
                        PlanParsed(snapshot, std::move(borrowed), PlanPurpose::kFindRows,
                                   "every live row", explain, explain_prefix));
  RowsByFragment matches;
  const auto& fragments = snapshot.manifest().fragments();
  for (int position = 0; position < fragments.size(); ++position) {
    const format::Fragment& fragment = fragments[position];
    const FragmentFilterPlan* plan =
        planned.planned() ? &planned.plan.fragments[static_cast<size_t>(position)] : nullptr;
    ARROW_ASSIGN_OR_RAISE(auto deleted, snapshot.deletions().Get(fragment));
    ARROW_ASSIGN_OR_RAISE(matches[fragment.id()],
                          MatchesOf(snapshot, planned, fragment, plan, *deleted));
  }
  return matches;
}

}  // namespace tessera::query
