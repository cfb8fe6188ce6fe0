#include "tessera/dataset/gather_rows.h"

#include <arrow/array/concatenate.h>
#include <arrow/buffer.h>
#include <arrow/builder.h>
#include <arrow/chunked_array.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/util/bit_util.h>

#include <cstring>
#include <limits>

#include "tessera/status.h"

namespace tessera::dataset {

namespace {

using Arrays = std::vector<const arrow::ArrayData*>;
using Rows = std::vector<RowOfBatches>;

// Bytes per value of a type stored as a validity bitmap and one buffer of fixed-width values;
// 0 for every other layout (booleans are bits, lists' offsets index a child, string views
// point into variadic buffers, dictionaries and extensions have their own).
int FixedValueBytes(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA:
    case arrow::Type::BOOL:
    case arrow::Type::DICTIONARY:
    case arrow::Type::EXTENSION:
      return 0;
    default:
      break;
  }
  const arrow::DataTypeLayout layout = type.layout();
  // Lists share the layout but keep their values in a child, views theirs in variadic buffers.
  if (type.num_fields() != 0 || layout.variadic_spec || layout.buffers.size() != 2 ||
      layout.buffers[1].kind != arrow::DataTypeLayout::BufferKind::FIXED_WIDTH) {
    return 0;
  }
  return static_cast<int>(layout.buffers[1].byte_width);
}

// The validity bitmap of the rows gathered and their null count; no bitmap when no array has
// a null.
struct Validity {
  std::shared_ptr<arrow::Buffer> bitmap;
  int64_t nulls = 0;
};

arrow::Result<Validity> GatherValidity(const Arrays& arrays, const Rows& rows) {
  bool any = false;
  for (const arrow::ArrayData* array : arrays) any = any || array->GetNullCount() > 0;
  Validity validity;
  if (!any) return validity;
  const auto length = static_cast<int64_t>(rows.size());
  ARROW_ASSIGN_OR_RAISE(validity.bitmap, arrow::AllocateEmptyBitmap(length));
  uint8_t* bits = validity.bitmap->mutable_data();
  for (int64_t i = 0; i < length; ++i) {
    const RowOfBatches& row = rows[static_cast<size_t>(i)];
    const arrow::ArrayData& array = *arrays[row.batch];
    const bool valid = array.buffers[0] == nullptr ||
                       arrow::bit_util::GetBit(array.buffers[0]->data(), array.offset + row.row);
    if (valid) {
      arrow::bit_util::SetBit(bits, i);
    } else {
      ++validity.nulls;
    }
  }
  return validity;
}

// Copies `width` bytes per row from `bases[row.batch] + row.row * width` to `out`, one after
// the other. `Width` > 0 fixes the width at compile time (the common widths: the copy becomes
// one load and store).
template <int Width>
void CopyFixed(const std::vector<const uint8_t*>& bases, const Rows& rows, int64_t width,
               uint8_t* out) {
  const int64_t step = Width > 0 ? Width : width;
  for (const RowOfBatches& row : rows) {
    std::memcpy(out, bases[row.batch] + row.row * step, static_cast<size_t>(step));
    out += step;
  }
}

void CopyFixedWidth(const std::vector<const uint8_t*>& bases, const Rows& rows, int64_t width,
                    uint8_t* out) {
  switch (width) {
    case 1:
      return CopyFixed<1>(bases, rows, width, out);
    case 2:
      return CopyFixed<2>(bases, rows, width, out);
    case 4:
      return CopyFixed<4>(bases, rows, width, out);
    case 8:
      return CopyFixed<8>(bases, rows, width, out);
    case 16:
      return CopyFixed<16>(bases, rows, width, out);
    case 32:
      return CopyFixed<32>(bases, rows, width, out);
    default:
      return CopyFixed<0>(bases, rows, width, out);
  }
}

// Values of fixed width `width`: `bases` holds each array's first value.
arrow::Result<std::shared_ptr<arrow::Buffer>> GatherValues(const std::vector<const uint8_t*>& bases,
                                                           const Rows& rows, int64_t width) {
  ARROW_ASSIGN_OR_RAISE(auto values,
                        arrow::AllocateBuffer(static_cast<int64_t>(rows.size()) * width));
  CopyFixedWidth(bases, rows, width, values->mutable_data());
  return std::shared_ptr<arrow::Buffer>(std::move(values));
}

arrow::Result<std::shared_ptr<arrow::ArrayData>> GatherFixedWidth(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows,
    int64_t width) {
  std::vector<const uint8_t*> bases;
  bases.reserve(arrays.size());
  for (const arrow::ArrayData* array : arrays) {
    // An empty array may have no values buffer; no row is picked from it.
    const arrow::Buffer* values = array->buffers[1].get();
    bases.push_back(values == nullptr ? nullptr : values->data() + array->offset * width);
  }
  ARROW_ASSIGN_OR_RAISE(Validity validity, GatherValidity(arrays, rows));
  ARROW_ASSIGN_OR_RAISE(auto values, GatherValues(bases, rows, width));
  return arrow::ArrayData::Make(type, static_cast<int64_t>(rows.size()),
                                {std::move(validity.bitmap), std::move(values)}, validity.nulls);
}

arrow::Result<std::shared_ptr<arrow::ArrayData>> GatherBooleans(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  const auto length = static_cast<int64_t>(rows.size());
  ARROW_ASSIGN_OR_RAISE(Validity validity, GatherValidity(arrays, rows));
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::AllocateEmptyBitmap(length));
  for (int64_t i = 0; i < length; ++i) {
    const RowOfBatches& row = rows[static_cast<size_t>(i)];
    const arrow::ArrayData& array = *arrays[row.batch];
    if (arrow::bit_util::GetBit(array.buffers[1]->data(), array.offset + row.row)) {
      arrow::bit_util::SetBit(values->mutable_data(), i);
    }
  }
  return arrow::ArrayData::Make(type, length, {std::move(validity.bitmap), std::move(values)},
                                validity.nulls);
}

// Strings and binaries with `Offset` offsets: one pass for the lengths, one for the bytes.
template <typename Offset>
arrow::Result<std::shared_ptr<arrow::ArrayData>> GatherVariableLength(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  const auto length = static_cast<int64_t>(rows.size());
  auto offsets_of = [&](const RowOfBatches& row) {
    const arrow::ArrayData& array = *arrays[row.batch];
    return reinterpret_cast<const Offset*>(array.buffers[1]->data()) + array.offset + row.row;
  };
  ARROW_ASSIGN_OR_RAISE(auto offsets,
                        arrow::AllocateBuffer((length + 1) * static_cast<int64_t>(sizeof(Offset))));
  auto* out_offsets = reinterpret_cast<Offset*>(offsets->mutable_data());
  int64_t total = 0;
  out_offsets[0] = 0;
  for (int64_t i = 0; i < length; ++i) {
    const Offset* at = offsets_of(rows[static_cast<size_t>(i)]);
    total += static_cast<int64_t>(at[1] - at[0]);
    if (total > std::numeric_limits<Offset>::max()) {
      return arrow::Status::CapacityError(
          "the ", length, " rows taken of a ", type->ToString(), " column hold more than ",
          std::numeric_limits<Offset>::max(), " bytes: take fewer rows at once");
    }
    out_offsets[i + 1] = static_cast<Offset>(total);
  }
  ARROW_ASSIGN_OR_RAISE(auto data, arrow::AllocateBuffer(total));
  uint8_t* out = data->mutable_data();
  for (const RowOfBatches& row : rows) {
    const Offset* at = offsets_of(row);
    const auto bytes = static_cast<size_t>(at[1] - at[0]);
    std::memcpy(out, arrays[row.batch]->buffers[2]->data() + at[0], bytes);
    out += bytes;
  }
  ARROW_ASSIGN_OR_RAISE(Validity validity, GatherValidity(arrays, rows));
  return arrow::ArrayData::Make(type, length,
                                {std::move(validity.bitmap), std::move(offsets), std::move(data)},
                                validity.nulls);
}

// Fixed-size lists of fixed-width values (embeddings): a row is list_size values in one run.
// Null when a child value may be null (the builders handle those).
arrow::Result<std::shared_ptr<arrow::ArrayData>> GatherFixedSizeLists(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  const auto& list_type = static_cast<const arrow::FixedSizeListType&>(*type);
  const int value_bytes = FixedValueBytes(*list_type.value_type());
  if (value_bytes == 0) return nullptr;
  const int64_t list_size = list_type.list_size();
  const int64_t width = list_size * value_bytes;
  std::vector<const uint8_t*> bases;
  bases.reserve(arrays.size());
  for (const arrow::ArrayData* array : arrays) {
    const arrow::ArrayData& child = *array->child_data[0];
    if (child.GetNullCount() > 0) return nullptr;
    const arrow::Buffer* values = child.buffers[1].get();
    bases.push_back(values == nullptr
                        ? nullptr
                        : values->data() +
                              (child.offset + array->offset * list_size) * value_bytes);
  }
  const auto length = static_cast<int64_t>(rows.size());
  ARROW_ASSIGN_OR_RAISE(Validity validity, GatherValidity(arrays, rows));
  ARROW_ASSIGN_OR_RAISE(auto values, GatherValues(bases, rows, width));
  auto child = arrow::ArrayData::Make(list_type.value_type(), length * list_size,
                                      {nullptr, std::move(values)}, 0);
  return arrow::ArrayData::Make(type, length, {std::move(validity.bitmap)}, {std::move(child)},
                                validity.nulls);
}

// Any type whose builder appends slices: one row at a time.
arrow::Result<std::shared_ptr<arrow::Array>> AppendRows(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  std::vector<arrow::ArraySpan> spans;
  spans.reserve(arrays.size());
  for (const arrow::ArrayData* array : arrays) spans.emplace_back(*array);
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  ARROW_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(rows.size())));
  for (const RowOfBatches& row : rows) {
    ARROW_RETURN_NOT_OK(builder->AppendArraySlice(spans[row.batch], row.row, 1));
  }
  return builder->Finish();
}

// Any type Arrow's take kernel handles: the arrays as one chunked array, taken at global
// positions (the kernel concatenates them first: the last resort).
arrow::Result<std::shared_ptr<arrow::Array>> TakeFromChunks(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  arrow::ArrayVector chunks;
  std::vector<uint64_t> starts;
  uint64_t start = 0;
  for (const arrow::ArrayData* array : arrays) {
    chunks.push_back(arrow::MakeArray(std::make_shared<arrow::ArrayData>(*array)));
    starts.push_back(start);
    start += static_cast<uint64_t>(array->length);
  }
  arrow::UInt64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(rows.size())));
  for (const RowOfBatches& row : rows) {
    indices.UnsafeAppend(starts[row.batch] + static_cast<uint64_t>(row.row));
  }
  ARROW_ASSIGN_OR_RAISE(auto positions, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto column, arrow::ChunkedArray::Make(std::move(chunks), type));
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(column, positions));
  const auto& pieces = taken.chunked_array()->chunks();
  if (pieces.empty()) return arrow::MakeEmptyArray(type);
  if (pieces.size() == 1) return pieces.front();
  return arrow::Concatenate(pieces);
}

// The rows copied by a loop typed on the column's layout; null for layouts without one.
arrow::Result<std::shared_ptr<arrow::ArrayData>> GatherTyped(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  if (const int width = FixedValueBytes(*type); width > 0) {
    return GatherFixedWidth(type, arrays, rows, width);
  }
  switch (type->id()) {
    case arrow::Type::BOOL:
      return GatherBooleans(type, arrays, rows);
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return GatherVariableLength<int32_t>(type, arrays, rows);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return GatherVariableLength<int64_t>(type, arrays, rows);
    case arrow::Type::FIXED_SIZE_LIST:
      return GatherFixedSizeLists(type, arrays, rows);
    default:
      return nullptr;
  }
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Array>> GatherRows(
    const std::shared_ptr<arrow::DataType>& type, const Arrays& arrays, const Rows& rows) {
  ARROW_ASSIGN_OR_RAISE(auto gathered, GatherTyped(type, arrays, rows));
  if (gathered != nullptr) return arrow::MakeArray(std::move(gathered));
  auto appended = AppendRows(type, arrays, rows);
  if (!appended.status().IsNotImplemented()) return appended;
  return TakeFromChunks(type, arrays, rows);
}

}  // namespace tessera::dataset
