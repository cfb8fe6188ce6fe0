// Printing record batches as a table (for people), CSV or JSON Lines (for programs).
//
// A printer streams: batches are printed as they arrive, so `tessera scan` of a large dataset
// runs in bounded memory. The table format aligns columns over blocks of rows (kTableBlockRows):
// a column widens when a later block needs it, and never narrows.
//
// Nulls: NULL (table), an empty field (csv; an empty string is written as ""), null (json).
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type.h>

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string_view>
#include <vector>

namespace tessera::cli {

enum class OutputFormat { kTable, kCsv, kJson };

inline constexpr int64_t kTableBlockRows = 1000;

// "table", "csv" or "json"; InvalidArgument otherwise.
arrow::Result<OutputFormat> ParseOutputFormat(std::string_view name);

class RecordPrinter {
 public:
  virtual ~RecordPrinter() = default;
  virtual arrow::Status Begin(const arrow::Schema& schema) = 0;
  virtual arrow::Status Print(const arrow::RecordBatch& batch) = 0;
  // Flushes buffered rows (and the table's row count); IOError when the output failed.
  virtual arrow::Status Finish() = 0;
};

std::unique_ptr<RecordPrinter> MakeRecordPrinter(OutputFormat format, std::ostream& out);

// Prints every batch of `reader` with a printer of `format`.
arrow::Status PrintReader(arrow::RecordBatchReader& reader, OutputFormat format, std::ostream& out);

// Prints one batch with a printer of `format`.
arrow::Status PrintBatch(const arrow::RecordBatch& batch, OutputFormat format, std::ostream& out);

}  // namespace tessera::cli
