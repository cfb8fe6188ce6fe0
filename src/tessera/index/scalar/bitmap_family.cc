#include "tessera/index/scalar/bitmap_family.h"

#include <arrow/type_traits.h>

#include <string>
#include <unordered_set>

#include "tessera/index/column_batches.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/bitmap_segment_reader.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/scalar/posting_lists.h"
#include "tessera/index/scalar/posting_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

constexpr std::string_view kBitmapTypes =
    "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, string, large_string, "
    "date32, timestamp";

bool BitmapIndexes(const arrow::DataType& type) {
  const arrow::Type::type id = type.id();
  return arrow::is_integer(id) || arrow::is_string(id) || id == arrow::Type::BOOL ||
         id == arrow::Type::DATE32 || id == arrow::Type::TIMESTAMP;
}

arrow::Status CheckColumn(const arrow::Field& column) {
  if (BitmapIndexes(*column.type())) return arrow::Status::OK();
  return Unsupported("a BITMAP index cannot be built on column '", column.name(), "' of type ",
                     column.type()->ToString(), "; BITMAP indexes columns of type ", kBitmapTypes);
}

arrow::Result<int64_t> MaxCardinality(const Params& params) {
  return IntegerParam(params, kBitmapFamilyName, kMaxCardinalityParam, kDefaultMaxCardinality,
                      kMinMaxCardinality, kMaxMaxCardinality);
}

arrow::Status CardinalityExceeded(const std::string& index, const std::string& column,
                                  const std::string& observed, int64_t limit) {
  return InvalidArgument("BITMAP index '", index, "' on column '", column, "' would hold ",
                         observed, " distinct non-null values, more than ", kMaxCardinalityParam,
                         "=", limit, "; raise ", kMaxCardinalityParam, " (at most ",
                         kMaxMaxCardinality, ") or index the column with a BTREE");
}

// Reads the column of every fragment once, counting distinct values as it goes so that a
// column of too many stops at the first batch past `limit` (not after sorting every row), and
// writes the sorted (value, row) pairs.
template <typename Key>
arrow::Result<PostingListStats> BuildTyped(const BuildInput& input,
                                           const std::shared_ptr<arrow::DataType>& type,
                                           int64_t limit, const SegmentDirectory& out,
                                           uint64_t* num_rows) {
  std::vector<PostingEntry<Key>> entries;
  std::vector<uint64_t> nulls;
  // String keys view into the column data: keep the arrays alive until the files are written.
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  std::unordered_set<Key> distinct;
  const auto& field = input.schema->field(input.column_index);
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      input, kBitmapFamilyName,
      [&](uint32_t fragment_id, uint64_t first, const std::shared_ptr<arrow::Array>& column) {
        *num_rows += static_cast<uint64_t>(column->length());
        if constexpr (kIsBinaryKey<Key>) arrays.push_back(column);
        const auto address = [&](int64_t i) { return BatchRowAddress(fragment_id, first, i); };
        ARROW_RETURN_NOT_OK(ForEachKey<Key>(
            *column,
            [&](int64_t i, const Key& key) {
              entries.push_back({key, address(i)});
              if (distinct.size() <= static_cast<size_t>(limit)) distinct.insert(key);
            },
            [&](int64_t i) { nulls.push_back(address(i)); }));
        if (distinct.size() > static_cast<size_t>(limit)) {
          return CardinalityExceeded(input.index_name, field->name(),
                                     "at least " + std::to_string(distinct.size()), limit);
        }
        return arrow::Status::OK();
      }));
  return WritePostingEntries<Key>(out, PostingListFiles(), type, kBitmapFamilyName,
                                  std::move(entries), std::move(nulls));
}

}  // namespace

std::string_view BitmapFamily::name() const { return kBitmapFamilyName; }

arrow::Result<Params> BitmapFamily::Validate(const arrow::Field& column,
                                             const Params& params) const {
  ARROW_RETURN_NOT_OK(CheckColumn(column));
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, kBitmapFamilyName, {kMaxCardinalityParam}));
  ARROW_ASSIGN_OR_RAISE(int64_t limit, MaxCardinality(params));
  return Params{{std::string(kMaxCardinalityParam), std::to_string(limit)}};
}

arrow::Result<format::SegmentMeta> BitmapFamily::Build(const BuildInput& input, const Model*,
                                                       const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "a BITMAP build"));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(int64_t limit, MaxCardinality(params));
  ARROW_ASSIGN_OR_RAISE(KeyDomain domain, DomainOf(*field->type()));
  uint64_t num_rows = 0;
  auto stats = DispatchKeyDomain(domain, [&](auto key) {
    return BuildTyped<decltype(key)>(input, field->type(), limit, out, &num_rows);
  });
  if (!stats.ok()) {
    // The cardinality error names the index and column already.
    if (KindOf(stats.status()) == ErrorKind::kInvalidArgument) return stats.status();
    return WithBuildContext(stats.status(), kBitmapFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  (*meta.mutable_details())[std::string(kMaxCardinalityParam)] = std::to_string(limit);
  SetPostingDetails(*stats, *field->type(), num_rows, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kBitmapFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> BitmapFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  // The merged segment keeps the first input's limit (every input of one index has the same).
  Params limit_params;
  if (!inputs.empty()) {
    const auto found = inputs.front().details().find(std::string(kMaxCardinalityParam));
    if (found != inputs.front().details().end()) limit_params[found->first] = found->second;
  }
  ARROW_ASSIGN_OR_RAISE(int64_t limit, MaxCardinality(limit_params));
  return MergePostingSegments(kBitmapFamilyName, inputs, dirs, out, {kMaxCardinalityParam},
                              [&](const PostingListStats& stats) -> arrow::Status {
                                if (stats.num_keys <= static_cast<uint64_t>(limit))
                                  return arrow::Status::OK();
                                return CardinalityExceeded(
                                    inputs.front().index_name(),
                                    "field " + std::to_string(inputs.front().field_id()),
                                    std::to_string(stats.num_keys), limit);
                              });
}

arrow::Result<std::unique_ptr<SegmentReader>> BitmapFamily::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, BitmapSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> BitmapFamily::RequiredFiles(const format::SegmentMeta&) const {
  return PostingListFiles().WithChecksums();
}

arrow::Status BitmapFamily::Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                                   const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kBitmapFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(auto reader, BitmapSegmentReader::Open(segment, dir));
  ARROW_RETURN_NOT_OK(CheckColumn(*field));
  const auto& key_type = reader->postings().key_type();
  if (!key_type->Equals(*field->type())) {
    return HeldTypeMismatch(kBitmapFamilyName, segment, key_type->ToString(), *field, "is of type",
                            field->type()->ToString());
  }
  // Built elsewhere: every posting is read and checked before the segment is published.
  return reader->postings().CheckAll();
}

std::unique_ptr<IndexFamily> MakeBitmapFamily() { return std::make_unique<BitmapFamily>(); }

}  // namespace tessera::index::scalar
