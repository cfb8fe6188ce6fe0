#include "tessera/io/array_verification.h"

#include <arrow/array.h>
#include <arrow/type.h>
#include <arrow/util/bit_util.h>

#include "tessera/status.h"

namespace tessera::io {

namespace {

// Verifies bytes [begin, end) of `buffer`, after checking that they lie inside it.
arrow::Status VerifyBufferBytes(const VerifiedFile& file, const arrow::Buffer* buffer,
                                int64_t begin, int64_t end) {
  if (begin == end) return arrow::Status::OK();
  if (buffer == nullptr || begin < 0 || end < begin || end > buffer->size()) {
    return file.CorruptError(Concat("holds an array whose buffer is too short (needs bytes [",
                                    begin, ", ", end, "), has ",
                                    buffer == nullptr ? 0 : buffer->size(), ")"));
  }
  return file.VerifyRange(buffer->data() + begin, end - begin);
}

arrow::Status VerifyBits(const VerifiedFile& file, const arrow::Buffer* buffer, int64_t first,
                         int64_t count) {
  if (count == 0 || buffer == nullptr) return arrow::Status::OK();
  return VerifyBufferBytes(file, buffer, first / 8, arrow::bit_util::BytesForBits(first + count));
}

// Reads offsets[index] of a verified offsets buffer.
template <typename Offset>
int64_t OffsetAt(const arrow::Buffer& offsets, int64_t index) {
  return static_cast<int64_t>(reinterpret_cast<const Offset*>(offsets.data())[index]);
}

arrow::Status VerifySlice(const VerifiedFile& file, const arrow::ArrayData& data, int64_t start,
                          int64_t count);

// Offsets of elements [first, first + count] and the range of values they span.
template <typename Offset>
arrow::Result<std::pair<int64_t, int64_t>> VerifyOffsets(const VerifiedFile& file,
                                                         const arrow::Buffer* offsets,
                                                         int64_t first, int64_t count) {
  const auto width = static_cast<int64_t>(sizeof(Offset));
  ARROW_RETURN_NOT_OK(VerifyBufferBytes(file, offsets, first * width, (first + count + 1) * width));
  // Every offset of the range, not just its ends: a decreasing offset in the middle would give
  // a kernel a negative length.
  const auto* values = reinterpret_cast<const Offset*>(offsets->data()) + first;
  // Checked without a branch per offset (the loop vectorizes: a whole batch's string offsets
  // were a fifth of a selective read); the failing position is looked for only on failure.
  bool damaged = values[0] < 0;
  for (int64_t i = 0; i < count; ++i) damaged |= values[i] > values[i + 1];
  if (damaged) {
    for (int64_t i = 0; i <= count; ++i) {
      if (values[i] < 0 || (i < count && values[i] > values[i + 1])) {
        return file.CorruptError(
            Concat("holds offsets that decrease or are negative (", static_cast<int64_t>(values[i]),
                   i < count ? Concat(" then ", static_cast<int64_t>(values[i + 1])) : "", ")"));
      }
    }
  }
  const auto begin = static_cast<int64_t>(values[0]);
  const auto end = static_cast<int64_t>(values[count]);
  return std::make_pair(begin, end);
}

template <typename Offset>
arrow::Status VerifyVariableLength(const VerifiedFile& file, const arrow::ArrayData& data,
                                   int64_t first, int64_t count) {
  ARROW_ASSIGN_OR_RAISE(auto range,
                        VerifyOffsets<Offset>(file, data.buffers[1].get(), first, count));
  return VerifyBufferBytes(file, data.buffers[2].get(), range.first, range.second);
}

template <typename Offset>
arrow::Status VerifyList(const VerifiedFile& file, const arrow::ArrayData& data, int64_t first,
                         int64_t count) {
  ARROW_ASSIGN_OR_RAISE(auto range,
                        VerifyOffsets<Offset>(file, data.buffers[1].get(), first, count));
  const arrow::ArrayData& child = *data.child_data[0];
  if (range.second > child.length) {
    return file.CorruptError(Concat("holds list offsets up to ", range.second,
                                    " over a child array of ", child.length, " values"));
  }
  return VerifySlice(file, child, range.first, range.second - range.first);
}

arrow::Status VerifyBuffersOf(const VerifiedFile& file, const arrow::ArrayData& data) {
  for (const auto& buffer : data.buffers) {
    if (buffer != nullptr) ARROW_RETURN_NOT_OK(file.VerifyRange(buffer->data(), buffer->size()));
  }
  for (const auto& child : data.child_data) ARROW_RETURN_NOT_OK(VerifyBuffersOf(file, *child));
  if (data.dictionary != nullptr) ARROW_RETURN_NOT_OK(VerifyBuffersOf(file, *data.dictionary));
  return arrow::Status::OK();
}

// Types whose row ranges this file does not compute (none that tessera stores today): every
// buffer and child whole, then Arrow's full validation.
arrow::Status VerifyWhole(const VerifiedFile& file, const arrow::ArrayData& data) {
  ARROW_RETURN_NOT_OK(VerifyBuffersOf(file, data));
  arrow::Status valid = arrow::MakeArray(std::make_shared<arrow::ArrayData>(data))->ValidateFull();
  if (!valid.ok()) return file.CorruptError("holds an invalid array: " + valid.message());
  return arrow::Status::OK();
}

// Elements [start, start + count) of `data`, relative to its offset.
arrow::Status VerifySlice(const VerifiedFile& file, const arrow::ArrayData& data, int64_t start,
                          int64_t count) {
  if (count == 0) return arrow::Status::OK();
  if (start < 0 || count < 0 || start + count > data.length) {
    return file.CorruptError(Concat("holds an array of ", data.length, " elements read at [", start,
                                    ", ", start + count, ")"));
  }
  const int64_t first = data.offset + start;
  if (!data.buffers.empty())
    ARROW_RETURN_NOT_OK(VerifyBits(file, data.buffers[0].get(), first, count));
  const arrow::DataType& type = *data.type;
  switch (type.id()) {
    case arrow::Type::NA:
      return arrow::Status::OK();
    case arrow::Type::BOOL:
      return VerifyBits(file, data.buffers[1].get(), first, count);
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return VerifyVariableLength<int32_t>(file, data, first, count);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return VerifyVariableLength<int64_t>(file, data, first, count);
    case arrow::Type::LIST:
      return VerifyList<int32_t>(file, data, first, count);
    case arrow::Type::LARGE_LIST:
      return VerifyList<int64_t>(file, data, first, count);
    case arrow::Type::FIXED_SIZE_LIST: {
      const int64_t size = static_cast<const arrow::FixedSizeListType&>(type).list_size();
      return VerifySlice(file, *data.child_data[0], first * size, count * size);
    }
    case arrow::Type::STRUCT:
      for (const auto& child : data.child_data) {
        ARROW_RETURN_NOT_OK(VerifySlice(file, *child, first, count));
      }
      return arrow::Status::OK();
    default:
      break;
  }
  if (arrow::is_fixed_width(type.id()) && data.buffers.size() == 2) {
    const int64_t width = type.byte_width();
    return VerifyBufferBytes(file, data.buffers[1].get(), first * width, (first + count) * width);
  }
  return VerifyWhole(file, data);
}

}  // namespace

arrow::Status VerifyArrayRows(const VerifiedFile& file, const arrow::ArrayData& data, int64_t start,
                              int64_t count) {
  return VerifySlice(file, data, start, count);
}

arrow::Status VerifyBatchRows(const VerifiedFile& file, const arrow::RecordBatch& batch,
                              int64_t start, int64_t count) {
  for (const auto& column : batch.columns()) {
    ARROW_RETURN_NOT_OK(VerifySlice(file, *column->data(), start, count));
  }
  return arrow::Status::OK();
}

}  // namespace tessera::io
