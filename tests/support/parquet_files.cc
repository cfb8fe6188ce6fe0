#include "support/parquet_files.h"

#include <arrow/array/concatenate.h>
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

namespace tessera::testing {

void WriteParquet(const std::string& path, const arrow::Table& table, const ParquetLayout& layout) {
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) {
    ADD_FAILURE() << out.status().ToString();
    return;
  }
  parquet::ArrowWriterProperties::Builder arrow_properties;
  if (layout.store_schema) arrow_properties.store_schema();
  parquet::WriterProperties::Builder properties;
  properties.compression(layout.uncompressed ? parquet::Compression::UNCOMPRESSED
                                             : parquet::Compression::SNAPPY);
  if (layout.page_index) {
    properties.enable_write_page_index();
  } else {
    properties.disable_write_page_index();
  }
  if (layout.max_rows_per_page > 0) properties.max_rows_per_page(layout.max_rows_per_page);
  if (!layout.dictionary) properties.disable_dictionary();
  arrow::Status written =
      parquet::arrow::WriteTable(table, arrow::default_memory_pool(), *out, layout.row_group_rows,
                                 properties.build(), arrow_properties.build());
  if (!written.ok()) ADD_FAILURE() << written.ToString();
  arrow::Status closed = (*out)->Close();
  if (!closed.ok()) ADD_FAILURE() << closed.ToString();
}

void WriteParquet(const std::string& path, const std::shared_ptr<arrow::RecordBatch>& batch,
                  const ParquetLayout& layout) {
  WriteParquet(path, *arrow::Table::FromRecordBatches({batch}).ValueOrDie(), layout);
}

std::shared_ptr<arrow::RecordBatch> VectorsAsLists(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                   const std::string& name) {
  const int position = batch->schema()->GetFieldIndex(name);
  // A copy starting at offset 0, so that its validity bitmap lines up with the new offsets.
  const auto copy = arrow::Concatenate({batch->column(position)}).ValueOrDie();
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*copy);
  const int32_t dimension = vectors.list_type()->list_size();
  arrow::Int32Builder offsets;
  for (int64_t row = 0; row <= vectors.length(); ++row) {
    EXPECT_TRUE(offsets.Append(static_cast<int32_t>(row * dimension)).ok());
  }
  auto offset_array = offsets.Finish().ValueOrDie();
  auto values = vectors.values()->Slice(0, vectors.length() * dimension);
  auto lists = std::make_shared<arrow::ListArray>(
      arrow::list(vectors.value_type()), vectors.length(), offset_array->data()->buffers[1], values,
      vectors.null_count() == 0 ? nullptr : vectors.null_bitmap(), vectors.null_count());
  auto field = batch->schema()->field(position)->WithType(lists->type());
  return batch->SetColumn(position, field, lists).ValueOrDie();
}

}  // namespace tessera::testing
