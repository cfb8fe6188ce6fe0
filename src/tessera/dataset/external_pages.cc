#include "tessera/dataset/external_pages.h"

#include <arrow/array/concatenate.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/writer.h>
#include <arrow/table.h>
#include <arrow/util/base64.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/reader.h>
#include <parquet/column_reader.h>
#include <parquet/file_reader.h>
#include <parquet/properties.h>
#include <parquet/schema.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "tessera/status.h"

namespace tessera::dataset {

namespace {

using parquet::schema::GroupNode;
using parquet::schema::Node;
using parquet::schema::NodePtr;
using parquet::schema::PrimitiveNode;

// A copy of `node` and its children: a node belongs to one parent, and the footer's schema must
// stay as it is.
NodePtr CopyNode(const Node& node) {
  // A node read from a footer has a logical type, or only a converted type (older writers).
  const auto& logical = node.logical_type();
  const bool has_logical = logical != nullptr && !logical->is_none();
  if (node.is_primitive()) {
    const auto& primitive = static_cast<const PrimitiveNode&>(node);
    const bool fixed = primitive.physical_type() == parquet::Type::FIXED_LEN_BYTE_ARRAY;
    const int length = fixed ? primitive.type_length() : -1;
    if (has_logical) {
      return PrimitiveNode::Make(node.name(), node.repetition(), logical, primitive.physical_type(),
                                 length, node.field_id());
    }
    const auto& decimal = primitive.decimal_metadata();
    return PrimitiveNode::Make(node.name(), node.repetition(), primitive.physical_type(),
                               node.converted_type(), length,
                               decimal.isset ? decimal.precision : -1,
                               decimal.isset ? decimal.scale : -1, node.field_id());
  }
  const auto& group = static_cast<const GroupNode&>(node);
  parquet::schema::NodeVector children;
  for (int i = 0; i < group.field_count(); ++i) children.push_back(CopyNode(*group.field(i)));
  if (has_logical) {
    return GroupNode::Make(node.name(), node.repetition(), children, logical, node.field_id());
  }
  return GroupNode::Make(node.name(), node.repetition(), children, node.converted_type(),
                         node.field_id());
}

// A run of consecutive data pages [first_page, last_page] and where its chunk lies in the file
// assembled in memory.
struct Run {
  size_t first_page = 0;
  size_t last_page = 0;
  int64_t first_row = 0;
  int64_t rows = 0;
  int64_t chunk_offset = 0;  // in the assembled file
  int64_t chunk_bytes = 0;
  int64_t values = 0;  // Parquet values (leaf entries) of its data pages
};

// Parquet values in the data pages of the column chunk `chunk` (a dictionary page first,
// perhaps), counted from the page headers without decoding a page.
int64_t CountValues(const std::shared_ptr<arrow::Buffer>& chunk, parquet::Compression::type codec,
                    const parquet::ColumnDescriptor& column) {
  auto pages = parquet::PageReader::Open(std::make_shared<arrow::io::BufferReader>(chunk),
                                         std::numeric_limits<int64_t>::max(), codec,
                                         parquet::default_reader_properties(), column);
  int64_t values = 0;
  pages->set_data_page_filter([&](const parquet::DataPageStats& stats) {
    values += stats.num_values;
    return true;  // skipped: counted, not decompressed
  });
  while (pages->NextPage() != nullptr) {
  }
  return values;
}

}  // namespace

arrow::Result<std::optional<std::vector<PageRun>>> ReadPagesHolding(
    const ExternalParquetFile& file, int group, int field, const std::vector<int64_t>& rows,
    int64_t max_rows) {
  using Result = std::optional<std::vector<PageRun>>;
  const auto& leaves = file.leaves(field);
  if (leaves.size() != 1 || rows.empty()) return Result();
  const int leaf = leaves[0];
  const auto offset_index = file.OffsetIndex(group, leaf);
  if (offset_index == nullptr) return Result();
  const auto& pages = offset_index->page_locations();
  const auto row_group = file.metadata().RowGroup(group);
  const int64_t group_rows = row_group->num_rows();
  const auto page_end_row = [&](size_t page) {
    return page + 1 < pages.size() ? pages[page + 1].first_row_index : group_rows;
  };

  // The runs of consecutive pages holding `rows`.
  std::vector<Run> runs;
  int64_t selected_rows = 0;
  for (size_t i = 0; i < rows.size();) {
    if (rows[i] < 0 || rows[i] >= group_rows) {
      return InvalidArgument("row ", rows[i], " of row group ", group, " of external file ",
                             file.location(), " does not exist; it has ", group_rows);
    }
    const auto after = std::upper_bound(
        pages.begin(), pages.end(), rows[i],
        [](int64_t row, const parquet::PageLocation& page) { return row < page.first_row_index; });
    const auto page = static_cast<size_t>(after - pages.begin() - 1);
    if (!runs.empty() && runs.back().last_page + 1 == page) {
      runs.back().last_page = page;
    } else {
      runs.push_back(Run{page, page});
    }
    selected_rows += page_end_row(page) - pages[page].first_row_index;
    if (selected_rows > max_rows) return Result();
    const int64_t end = page_end_row(page);
    while (i < rows.size() && rows[i] < end) ++i;
  }

  // The file assembled in memory: the magic, then for each run its chunk (the dictionary page,
  // then the run's data pages as the file holds them).
  const auto chunk = row_group->ColumnChunk(leaf);
  const int64_t chunk_start = ColumnChunkStart(*chunk);
  // Non-negative and bounded: OffsetIndex checked the pages against the chunk.
  const int64_t dictionary_bytes = pages[0].offset - chunk_start;
  // Each run repeats the dictionary: beyond the chunk's own size, decoding it whole is cheaper.
  int64_t assembled_bytes = 0;
  for (const auto& run : runs) {
    const auto& last = pages[run.last_page];
    assembled_bytes +=
        dictionary_bytes + last.offset + last.compressed_page_size - pages[run.first_page].offset;
  }
  if (assembled_bytes > chunk->total_compressed_size()) return Result();
  std::shared_ptr<arrow::Buffer> dictionary;
  if (dictionary_bytes > 0) {
    ARROW_ASSIGN_OR_RAISE(dictionary, file.ReadRange(chunk_start, dictionary_bytes));
  }
  std::vector<std::shared_ptr<arrow::Buffer>> run_pages;
  int64_t total = 4;
  for (auto& run : runs) {
    const auto& last = pages[run.last_page];
    const int64_t begin = pages[run.first_page].offset;
    ARROW_ASSIGN_OR_RAISE(auto bytes,
                          file.ReadRange(begin, last.offset + last.compressed_page_size - begin));
    run.first_row = pages[run.first_page].first_row_index;
    run.rows = page_end_row(run.last_page) - run.first_row;
    run.chunk_offset = total;
    run.chunk_bytes = dictionary_bytes + bytes->size();
    total += run.chunk_bytes;
    run_pages.push_back(std::move(bytes));
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> assembled, arrow::AllocateBuffer(total));
  uint8_t* out = assembled->mutable_data();
  std::memcpy(out, "PAR1", 4);
  for (size_t r = 0; r < runs.size(); ++r) {
    uint8_t* at = out + runs[r].chunk_offset;
    if (dictionary != nullptr) std::memcpy(at, dictionary->data(), dictionary->size());
    std::memcpy(at + dictionary_bytes, run_pages[r]->data(), run_pages[r]->size());
  }
  run_pages.clear();

  try {
    // The footer of the assembled file: the field alone, one row group per run.
    const parquet::SchemaDescriptor& file_schema = *file.metadata().schema();
    const parquet::ColumnDescriptor& column = *file_schema.Column(leaf);
    auto root = GroupNode::Make("schema", parquet::Repetition::REQUIRED,
                                {CopyNode(*file_schema.GetColumnRoot(leaf))}, nullptr);
    parquet::SchemaDescriptor schema;
    schema.Init(root);
    auto properties =
        parquet::WriterProperties::Builder()
            .created_by(file.metadata().created_by())
            ->compression(schema.Column(0)->path()->ToDotString(), chunk->compression())
            ->build();
    auto builder = parquet::FileMetaDataBuilder::Make(&schema, properties);
    for (auto& run : runs) {
      run.values = CountValues(arrow::SliceBuffer(assembled, run.chunk_offset, run.chunk_bytes),
                               chunk->compression(), column);
      auto* row_group_builder = builder->AppendRowGroup();
      row_group_builder->set_num_rows(run.rows);
      row_group_builder->NextColumnChunk()->Finish(
          run.values, dictionary_bytes > 0 ? run.chunk_offset : 0, -1,
          run.chunk_offset + dictionary_bytes, run.chunk_bytes, run.chunk_bytes,
          dictionary_bytes > 0, false, {}, {});
      row_group_builder->Finish(run.chunk_bytes);
    }
    // The field's Arrow type as the file's reader reads it (a fixed-size list stays one).
    ARROW_ASSIGN_OR_RAISE(auto arrow_schema, arrow::ipc::SerializeSchema(
                                                 *arrow::schema({file.schema()->field(field)})));
    auto metadata = builder->Finish(arrow::key_value_metadata(
        {"ARROW:schema"}, {arrow::util::base64_encode(arrow_schema->ToString())}));

    auto reader_file = parquet::ParquetFileReader::Open(
        std::make_shared<arrow::io::BufferReader>(assembled), parquet::default_reader_properties(),
        std::shared_ptr<parquet::FileMetaData>(std::move(metadata)));
    parquet::ArrowReaderProperties reader_properties = parquet::default_arrow_reader_properties();
    reader_properties.set_use_threads(false);  // the callers read batches on several threads
    auto reader = parquet::arrow::FileReader::Make(arrow::default_memory_pool(),
                                                   std::move(reader_file), reader_properties);
    if (!reader.ok()) return file.CorruptError(reader.status().message());
    std::vector<PageRun> decoded;
    for (size_t r = 0; r < runs.size(); ++r) {
      auto table = (*reader)->ReadRowGroup(static_cast<int>(r), std::vector<int>{0});
      if (!table.ok()) {
        return file.CorruptError(Concat("row group ", group, " column '",
                                        file.schema()->field(field)->name(), "' pages from row ",
                                        runs[r].first_row, ": ", table.status().message()));
      }
      const auto& chunks = (*table)->column(0)->chunks();
      std::shared_ptr<arrow::Array> values;
      if (chunks.size() == 1) {
        values = chunks[0];
      } else if (!chunks.empty()) {
        ARROW_ASSIGN_OR_RAISE(values, arrow::Concatenate(chunks));
      }
      if (values == nullptr) {
        return file.CorruptError(
            Concat("row group ", group, " column '", file.schema()->field(field)->name(),
                   "': the pages from row ", runs[r].first_row, " decode to nothing"));
      }
      if (values->length() != runs[r].rows) {
        return file.CorruptError(
            Concat("row group ", group, " column '", file.schema()->field(field)->name(),
                   "': the pages from row ", runs[r].first_row, " decode to ", values->length(),
                   " rows; its offset index says ", runs[r].rows));
      }
      decoded.push_back(PageRun{runs[r].first_row, std::move(values)});
    }
    return Result(std::move(decoded));
  } catch (const std::exception& error) {
    return file.CorruptError(Concat("row group ", group, " column '",
                                    file.schema()->field(field)->name(), "': ", error.what()));
  }
}

}  // namespace tessera::dataset
