#include "tessera/query/filtered_scan.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/row_matcher.h"
#include "tessera/dataset/scanner.h"
#include "tessera/query/filter_plan.h"
#include "tessera/status.h"

namespace tessera::query {

namespace {

// Candidate rows are taken in chunks when a limit may stop the query early; the first chunk
// holds at least this many rows and each next chunk twice as many as the one before.
constexpr uint64_t kMinimumChunk = 256;

// The data columns to take for candidates: the output's (without `_rowaddr`), then the other
// columns the filter reads.
std::vector<std::string> TakeColumns(const arrow::Schema& output, const expr::Filter* filter) {
  std::vector<std::string> names;
  for (const auto& field : output.fields()) {
    if (field->name() != dataset::kRowAddressColumn) names.push_back(field->name());
  }
  if (filter != nullptr) {
    for (const auto& name : filter->referenced_columns()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

arrow::Result<std::shared_ptr<arrow::Array>> AddressArray(const std::vector<uint64_t>& addresses) {
  arrow::UInt64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(addresses));
  return builder.Finish();
}

std::vector<uint64_t> AddressesOf(uint32_t fragment, const std::vector<uint32_t>& offsets,
                                  size_t begin, size_t end) {
  std::vector<uint64_t> addresses;
  addresses.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    addresses.push_back(dataset::MakeRowAddress(fragment, offsets[i]));
  }
  return addresses;
}

std::vector<uint32_t> OffsetsOf(const Roaring& rows) {
  std::vector<uint32_t> offsets(rows.cardinality());
  rows.toUint32Array(offsets.data());
  return offsets;
}

// The rows at `addresses` (live, ascending) with `columns`, as one batch, and the filter's
// verdict on each.
struct Rechecked {
  std::shared_ptr<arrow::RecordBatch> batch;
  std::shared_ptr<arrow::BooleanArray> selected;
};

arrow::Result<Rechecked> TakeAndRecheck(const dataset::Dataset& dataset,
                                        const std::vector<uint64_t>& addresses,
                                        const std::vector<std::string>& columns,
                                        const expr::Filter& filter) {
  ARROW_ASSIGN_OR_RAISE(auto table, dataset.Take(addresses, columns));
  ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
  ARROW_ASSIGN_OR_RAISE(auto selected, filter.Select(*batch));
  return Rechecked{std::move(batch), std::move(selected)};
}

class ScanExecutor {
 public:
  ScanExecutor(const dataset::Dataset& dataset, const dataset::ScanOptions& options,
               std::shared_ptr<arrow::Schema> output, const expr::Filter& filter,
               const FilterPlan& plan)
      : dataset_(dataset),
        options_(options),
        output_(std::move(output)),
        filter_(filter),
        plan_(plan),
        take_columns_(TakeColumns(*output_, &filter)) {}

  arrow::Result<std::shared_ptr<arrow::Table>> Run() {
    const size_t count = plan_.fragments.size();
    size_t position = 0;
    while (position < count && !Full()) {
      if (plan_.fragments[position].candidates) {
        ARROW_RETURN_NOT_OK(ReadCandidates(plan_.fragments[position]));
        ++position;
        continue;
      }
      size_t end = position;
      while (end < count && !plan_.fragments[end].candidates) ++end;
      ARROW_RETURN_NOT_OK(ScanFragments(position, end));
      position = end;
    }
    return arrow::Table::FromRecordBatches(output_, batches_);
  }

 private:
  bool Full() const { return options_.limit && returned_ >= *options_.limit; }
  std::optional<uint64_t> Room() const {
    if (!options_.limit) return std::nullopt;
    return *options_.limit - returned_;
  }

  void Emit(std::shared_ptr<arrow::RecordBatch> batch) {
    if (const auto room = Room(); room && static_cast<uint64_t>(batch->num_rows()) > *room) {
      batch = batch->Slice(0, static_cast<int64_t>(*room));
    }
    if (batch->num_rows() == 0) return;
    returned_ += static_cast<uint64_t>(batch->num_rows());
    batches_.push_back(std::move(batch));
  }

  // Fragments [begin, end) of the plan, none answered by an index: the ordinary scan.
  arrow::Status ScanFragments(size_t begin, size_t end) {
    const format::Manifest& manifest = dataset_.manifest();
    auto part = std::make_shared<format::Manifest>();
    part->set_format_version(manifest.format_version());
    part->set_version(manifest.version());
    for (size_t i = begin; i < end; ++i) {
      *part->add_fragments() = manifest.fragments(plan_.fragments[i].position);
    }
    dataset::ScanOptions options = options_;
    options.limit = Room();
    ARROW_ASSIGN_OR_RAISE(auto reader, dataset::MakeScanner(dataset_.storage(), std::move(part),
                                                            dataset_.schema(), options));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (batch == nullptr) break;
      Emit(std::move(batch));
    }
    return arrow::Status::OK();
  }

  arrow::Status ReadCandidates(const FragmentFilterPlan& fragment) {
    const std::vector<uint32_t> offsets = OffsetsOf(*fragment.candidates);
    size_t next = 0;
    uint64_t chunk = offsets.size();
    if (const auto room = Room()) chunk = std::max(kMinimumChunk, 2 * *room);
    while (next < offsets.size() && !Full()) {
      const size_t end = next + std::min<uint64_t>(chunk, offsets.size() - next);
      const auto addresses = AddressesOf(fragment.fragment_id, offsets, next, end);
      ARROW_ASSIGN_OR_RAISE(Rechecked taken,
                            TakeAndRecheck(dataset_, addresses, take_columns_, filter_));
      std::vector<std::shared_ptr<arrow::Array>> columns;
      for (const auto& field : output_->fields()) {
        if (field->name() == dataset::kRowAddressColumn) {
          ARROW_ASSIGN_OR_RAISE(auto array, AddressArray(addresses));
          columns.push_back(std::move(array));
        } else {
          columns.push_back(taken.batch->GetColumnByName(field->name()));
        }
      }
      auto projected = arrow::RecordBatch::Make(output_, taken.batch->num_rows(), columns);
      ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(projected, taken.selected));
      Emit(kept.record_batch());
      next = end;
      chunk *= 2;
    }
    return arrow::Status::OK();
  }

  const dataset::Dataset& dataset_;
  const dataset::ScanOptions& options_;
  std::shared_ptr<arrow::Schema> output_;
  const expr::Filter& filter_;
  const FilterPlan& plan_;
  std::vector<std::string> take_columns_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  uint64_t returned_ = 0;
};

arrow::Result<std::shared_ptr<arrow::Table>> PlainScan(const dataset::Dataset& dataset,
                                                       const dataset::ScanOptions& options,
                                                       std::string reason, Explain* explain) {
  if (explain != nullptr && dataset.manifest().fragments_size() > 0) {
    std::vector<uint32_t> ids;
    for (const auto& fragment : dataset.manifest().fragments()) ids.push_back(fragment.id());
    explain->Add(DescribeFragments(ids) + ": scan (" + reason + ")");
  }
  return dataset.ScanToTable(options);
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Table>> Scan(const dataset::Dataset& dataset,
                                                  const dataset::ScanOptions& options,
                                                  Explain* explain) {
  ARROW_ASSIGN_OR_RAISE(auto output, dataset::ScanOutputSchema(*dataset.schema(), options));
  if (options.filter.empty()) return PlainScan(dataset, options, "no filter", explain);
  ARROW_ASSIGN_OR_RAISE(auto filter, expr::Filter::Parse(options.filter, dataset.schema()));
  if (filter->root().kind() == expr::NodeKind::kLiteral) {
    return PlainScan(dataset, options, "constant filter " + filter->ToString(), explain);
  }
  ARROW_ASSIGN_OR_RAISE(FilterPlan plan, PlanFilter(dataset, *filter));
  ExplainFilterPlan(plan, "", explain);
  if (!plan.any_indexed()) return dataset.ScanToTable(options);
  return ScanExecutor(dataset, options, std::move(output), *filter, plan).Run();
}

arrow::Result<RowsByFragment> FindMatchingRows(const dataset::Dataset& dataset,
                                               const expr::Filter& filter, Explain* explain,
                                               std::string_view explain_prefix) {
  RowsByFragment matches;
  const auto& manifest = dataset.manifest();
  if (filter.root().kind() == expr::NodeKind::kLiteral) {
    const auto& value = filter.root().As<expr::Literal>().value();
    const bool all = value->is_valid && value->type->id() == arrow::Type::BOOL &&
                     static_cast<const arrow::BooleanScalar&>(*value).value;
    if (explain != nullptr) {
      explain->Add(std::string(explain_prefix) + "constant filter " + filter.ToString() + ": " +
                   (all ? "every live row" : "no row"));
    }
    for (const auto& fragment : manifest.fragments()) {
      Roaring& rows = matches[fragment.id()];
      if (!all) continue;
      rows.addRange(0, fragment.physical_rows());
      ARROW_ASSIGN_OR_RAISE(auto deleted,
                            dataset::LoadDeletionVector(*dataset.storage(), fragment));
      rows -= *deleted;
    }
    return matches;
  }
  ARROW_ASSIGN_OR_RAISE(FilterPlan plan, PlanFilter(dataset, filter));
  ExplainFilterPlan(plan, explain_prefix, explain);
  const std::vector<std::string> columns = TakeColumns(*arrow::schema({}), &filter);
  for (const auto& fragment_plan : plan.fragments) {
    const format::Fragment& fragment = manifest.fragments(fragment_plan.position);
    Roaring& rows = matches[fragment.id()];
    if (!fragment_plan.candidates) {
      ARROW_ASSIGN_OR_RAISE(auto deleted,
                            dataset::LoadDeletionVector(*dataset.storage(), fragment));
      ARROW_ASSIGN_OR_RAISE(rows, dataset::FindMatchingRows(*dataset.storage(), fragment,
                                                            dataset.schema(), filter, *deleted));
      continue;
    }
    const std::vector<uint32_t> offsets = OffsetsOf(*fragment_plan.candidates);
    if (offsets.empty()) continue;
    const auto addresses = AddressesOf(fragment.id(), offsets, 0, offsets.size());
    ARROW_ASSIGN_OR_RAISE(Rechecked taken, TakeAndRecheck(dataset, addresses, columns, filter));
    for (int64_t row = 0; row < taken.selected->length(); ++row) {
      if (taken.selected->Value(row)) rows.add(offsets[static_cast<size_t>(row)]);
    }
  }
  return matches;
}

}  // namespace tessera::query
