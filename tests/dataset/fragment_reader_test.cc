// FragmentReader (dataset/fragment_reader.h): batches of a local data file are slices of its
// memory map, whichever columns are selected — never copies.
#include "tessera/dataset/fragment_reader.h"

#include <gtest/gtest.h>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"

namespace tessera::dataset::fragment_reader_test {
namespace {

TEST(FragmentReader, SelectedColumnsOfALocalFileAreReadWithoutCopying) {
  testing::TempDirectory directory;
  WriteOptions options;
  options.rows_per_batch = 64;
  ASSERT_OK_AND_ASSIGN(
      auto data, Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 200, 8), options));
  const int vector_column = data->schema()->GetFieldIndex("vector");
  const int id_column = data->schema()->GetFieldIndex("id");
  ASSERT_OK_AND_ASSIGN(auto reader,
                       FragmentReader::Open(*data->storage(), data->manifest().fragments(0),
                                            data->schema(), {vector_column, id_column}));
  ASSERT_EQ(reader->schema()->field(0)->name(), "vector");
  ASSERT_EQ(reader->schema()->field(1)->name(), "id");
  ASSERT_OK_AND_ASSIGN(auto first, reader->ReadBatch(1));
  ASSERT_OK_AND_ASSIGN(auto second, reader->ReadBatch(1));
  ASSERT_EQ(first->num_columns(), 2);
  EXPECT_EQ(testing::Int64Column(*arrow::Table::FromRecordBatches({first}).ValueOrDie(), "id")[0],
            64);
  // A copy would land at a new address on every read; a slice of the map never moves.
  const auto values = [](const arrow::RecordBatch& batch) {
    return batch.column(0)->data()->child_data[0]->buffers[1]->data();
  };
  EXPECT_EQ(values(*first), values(*second));
  EXPECT_FALSE(first->column(0)->data()->child_data[0]->buffers[1]->is_mutable());
}

}  // namespace
}  // namespace tessera::dataset::fragment_reader_test
