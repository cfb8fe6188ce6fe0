#include "support/scalar_family_testing.h"

#include <algorithm>

#include "support/table_builders.h"
#include "tessera/expr/filter.h"
#include "tessera/index/segment_meta.h"

namespace tessera::testing {

ColumnDataset MakeColumnDataset(const TempDirectory& directory,
                                const std::shared_ptr<arrow::Array>& values,
                                uint64_t rows_per_file) {
  auto schema = arrow::schema({arrow::field("v", values->type())});
  dataset::WriteOptions options;
  options.max_rows_per_file = rows_per_file;
  options.rows_per_batch = 64;
  ColumnDataset data;
  data.dataset =
      dataset::Dataset::Create(
          directory.Child("ds"),
          ReaderOf(arrow::RecordBatch::Make(schema, values->length(), {values})), options)
          .ValueOrDie();
  dataset::ScanOptions scan;
  scan.with_row_address = true;
  auto table = data.dataset->ScanToTable(scan).ValueOrDie()->CombineChunks().ValueOrDie();
  data.scanned = arrow::TableBatchReader(*table).Next().ValueOrDie();
  data.column = data.scanned->GetColumnByName("v");
  data.addresses = std::static_pointer_cast<arrow::UInt64Array>(
      data.scanned->GetColumnByName(dataset::kRowAddressColumn));
  return data;
}

std::vector<format::Fragment> AllFragments(const dataset::Dataset& dataset) {
  return {dataset.manifest().fragments().begin(), dataset.manifest().fragments().end()};
}

index::BuildInput InputOf(const dataset::Dataset& dataset,
                          const std::vector<format::Fragment>& fragments, index::Params params) {
  index::BuildInput input;
  input.storage = dataset.storage();
  input.schema = dataset.schema();
  input.column_index = 0;
  input.field_id = dataset.field_ids()[0];
  input.dataset_version = dataset.version();
  input.fragments = fragments;
  input.index_name = "v_idx";
  input.params = std::move(params);
  return input;
}

arrow::Result<BuiltSegment> BuildSegment(const index::IndexFamily& family,
                                         const dataset::Dataset& dataset,
                                         const std::vector<format::Fragment>& fragments,
                                         const index::Params& params) {
  ARROW_ASSIGN_OR_RAISE(auto normalized, family.Validate(*dataset.schema()->field(0), params));
  BuiltSegment built;
  ARROW_ASSIGN_OR_RAISE(built.directory, index::NewSegmentDirectory(dataset.storage()));
  ARROW_ASSIGN_OR_RAISE(
      built.meta, family.Build(InputOf(dataset, fragments, normalized), nullptr, built.directory));
  *built.meta.mutable_params() = {normalized.begin(), normalized.end()};
  return built;
}

arrow::Result<BuiltSegment> BuildWholeSegment(const index::IndexFamily& family,
                                              const dataset::Dataset& dataset,
                                              const index::Params& params) {
  return BuildSegment(family, dataset, AllFragments(dataset), params);
}

arrow::Result<std::vector<BuiltSegment>> BuildSegmentsOfGroups(
    const index::IndexFamily& family, const dataset::Dataset& dataset,
    const std::vector<format::Fragment>& fragments, size_t group, const index::Params& params) {
  std::vector<BuiltSegment> parts;
  for (size_t begin = 0; begin < fragments.size(); begin += group) {
    const size_t end = std::min(fragments.size(), begin + group);
    const std::vector<format::Fragment> subset(fragments.begin() + static_cast<long>(begin),
                                               fragments.begin() + static_cast<long>(end));
    ARROW_ASSIGN_OR_RAISE(auto part, BuildSegment(family, dataset, subset, params));
    parts.push_back(std::move(part));
  }
  return parts;
}

arrow::Result<BuiltSegment> MergeSegments(const index::IndexFamily& family,
                                          const dataset::Dataset& dataset,
                                          const std::vector<BuiltSegment>& inputs) {
  std::vector<format::SegmentMeta> metas;
  std::vector<index::SegmentDirectory> dirs;
  for (const auto& input : inputs) {
    metas.push_back(input.meta);
    dirs.push_back(input.directory);
  }
  BuiltSegment merged;
  ARROW_ASSIGN_OR_RAISE(merged.directory, index::NewSegmentDirectory(dataset.storage()));
  ARROW_ASSIGN_OR_RAISE(merged.meta, family.Merge(metas, dirs, merged.directory));
  return merged;
}

arrow::Result<std::unique_ptr<index::SegmentReader>> OpenSegment(const index::IndexFamily& family,
                                                                 const BuiltSegment& segment) {
  return family.Open(segment.meta, segment.directory);
}

arrow::Result<std::vector<uint64_t>> ScanTrueRows(const ColumnDataset& data,
                                                  const std::string& filter,
                                                  const format::SegmentMeta* segment) {
  ARROW_ASSIGN_OR_RAISE(auto parsed, expr::Filter::Parse(filter, data.dataset->schema()));
  ARROW_ASSIGN_OR_RAISE(auto truth, parsed->Evaluate(*data.scanned));
  Roaring fragments;
  if (segment != nullptr) {
    ARROW_ASSIGN_OR_RAISE(fragments, index::DecodeFragmentBitmap(*segment));
  }
  const auto& addresses = static_cast<const arrow::UInt64Array&>(
      *data.scanned->GetColumnByName(dataset::kRowAddressColumn));
  std::vector<uint64_t> rows;
  for (int64_t i = 0; i < truth->length(); ++i) {
    if (!truth->IsValid(i) || !truth->Value(i)) continue;
    const uint64_t row = addresses.Value(i);
    if (segment != nullptr && !fragments.contains(dataset::FragmentOf(row))) continue;
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

arrow::Result<const expr::Node*> ParseLeaf(const ColumnDataset& data, const std::string& filter,
                                           std::shared_ptr<const void>* holder) {
  ARROW_ASSIGN_OR_RAISE(auto parsed, expr::Filter::Parse(filter, data.dataset->schema()));
  *holder = parsed;
  return &parsed->root();
}

}  // namespace tessera::testing
