#include "tessera/index/scalar/label_list_family.h"

#include <string>

#include "tessera/expr/types.h"
#include "tessera/index/column_batches.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/scalar/label_list_segment_reader.h"
#include "tessera/index/scalar/posting_lists.h"
#include "tessera/index/scalar/posting_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

constexpr std::string_view kLabelListTypes =
    "list or large_list of int8, int16, int32, int64, uint8, uint16, uint32, uint64, string or "
    "large_string";

// The element type of an indexable list column; Unsupported naming the accepted types. The
// columns indexed are those filters query with array_has_any / array_has_all (expr/types.h).
arrow::Result<std::shared_ptr<arrow::DataType>> ElementTypeOf(const arrow::Field& column) {
  const auto& type = *column.type();
  if (expr::FamilyOf(type) == expr::TypeFamily::kList) return expr::ListElementType(type);
  return Unsupported("a LABEL_LIST index cannot be built on column '", column.name(), "' of type ",
                     type.ToString(), "; LABEL_LIST indexes columns of type ", kLabelListTypes);
}

// Calls visit(row, elements, first, end) for each non-null list of `column`: its elements are
// [first, end) of `elements`; on_null(row) for each null list.
template <typename ListArray, typename Visit, typename OnNull>
void ForEachList(const arrow::Array& column, Visit&& visit, OnNull&& on_null) {
  const auto& lists = static_cast<const ListArray&>(column);
  for (int64_t row = 0; row < lists.length(); ++row) {
    if (lists.IsNull(row)) {
      on_null(row);
    } else {
      visit(row, static_cast<int64_t>(lists.value_offset(row)),
            static_cast<int64_t>(lists.value_offset(row + 1)));
    }
  }
}

template <typename Key>
arrow::Result<PostingListStats> BuildLabelListTyped(
    const BuildInput& input, const std::shared_ptr<arrow::DataType>& element_type,
    const SegmentDirectory& out, uint64_t* num_rows) {
  std::vector<PostingEntry<Key>> entries;
  std::vector<uint64_t> nulls;
  // String keys view into the column data: keep the arrays alive until the files are written.
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      input, kLabelListFamilyName,
      [&](uint32_t fragment_id, uint64_t first, const std::shared_ptr<arrow::Array>& column) {
        *num_rows += static_cast<uint64_t>(column->length());
        const auto address = [&](int64_t i) { return BatchRowAddress(fragment_id, first, i); };
        const bool large = column->type_id() == arrow::Type::LARGE_LIST;
        const std::shared_ptr<arrow::Array> elements =
            large ? static_cast<const arrow::LargeListArray&>(*column).values()
                  : static_cast<const arrow::ListArray&>(*column).values();
        // The row of each element (-1: under no non-null list), then the elements' keys.
        std::vector<int64_t> owner(static_cast<size_t>(elements->length()), -1);
        const auto visit = [&](int64_t row, int64_t begin, int64_t end) {
          for (int64_t j = begin; j < end; ++j) owner[static_cast<size_t>(j)] = row;
        };
        const auto on_null = [&](int64_t row) { nulls.push_back(address(row)); };
        if (large) {
          ForEachList<arrow::LargeListArray>(*column, visit, on_null);
        } else {
          ForEachList<arrow::ListArray>(*column, visit, on_null);
        }
        ARROW_RETURN_NOT_OK(ForEachKey<Key>(
            *elements,
            [&](int64_t j, const Key& key) {
              const int64_t row = owner[static_cast<size_t>(j)];
              if (row >= 0) entries.push_back({key, address(row)});
            },
            [](int64_t) {}));  // null elements never match: not indexed
        if constexpr (kIsBinaryKey<Key>) arrays.push_back(elements);
        return arrow::Status::OK();
      }));
  // Duplicate elements of one list give equal pairs, which WritePostingEntries keeps once.
  return WritePostingEntries<Key>(out, PostingListFiles(), element_type, kLabelListFamilyName,
                                  std::move(entries), std::move(nulls));
}

}  // namespace

std::string_view LabelListFamily::name() const { return kLabelListFamilyName; }

arrow::Result<Params> LabelListFamily::Validate(const arrow::Field& column,
                                                const Params& params) const {
  ARROW_RETURN_NOT_OK(ElementTypeOf(column).status());
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, kLabelListFamilyName, {}));
  return Params{};
}

arrow::Result<format::SegmentMeta> LabelListFamily::Build(const BuildInput& input, const Model*,
                                                          const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "a LABEL_LIST build"));
  ARROW_RETURN_NOT_OK(Validate(*field, input.params).status());
  ARROW_ASSIGN_OR_RAISE(auto element_type, ElementTypeOf(*field));
  ARROW_ASSIGN_OR_RAISE(KeyDomain domain, DomainOf(*element_type));
  uint64_t num_rows = 0;
  auto stats = DispatchKeyDomain(domain, [&](auto key) {
    return BuildLabelListTyped<decltype(key)>(input, element_type, out, &num_rows);
  });
  if (!stats.ok()) {
    return WithBuildContext(stats.status(), kLabelListFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetPostingDetails(*stats, *element_type, num_rows, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kLabelListFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> LabelListFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  return MergePostingSegments(kLabelListFamilyName, inputs, dirs, out, {},
                              [](const PostingListStats&) { return arrow::Status::OK(); });
}

arrow::Result<std::unique_ptr<SegmentReader>> LabelListFamily::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, LabelListSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> LabelListFamily::RequiredFiles(const format::SegmentMeta&) const {
  return PostingListFiles().WithChecksums();
}

arrow::Status LabelListFamily::Verify(const BuildInput& definition,
                                      const format::SegmentMeta& segment,
                                      const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kLabelListFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(auto reader, LabelListSegmentReader::Open(segment, dir));
  ARROW_ASSIGN_OR_RAISE(auto element_type, ElementTypeOf(*field));
  const auto& key_type = reader->postings().key_type();
  if (!key_type->Equals(*element_type)) {
    return InvalidArgument("LABEL_LIST segment ", segment.uuid(), " holds elements of type ",
                           key_type->ToString(), " but the elements of column '", field->name(),
                           "' are of type ", element_type->ToString());
  }
  // Built elsewhere: every posting is read and checked before the segment is published.
  return reader->postings().CheckAll();
}

std::unique_ptr<IndexFamily> MakeLabelListFamily() { return std::make_unique<LabelListFamily>(); }

}  // namespace tessera::index::scalar
