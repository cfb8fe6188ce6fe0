#include "output_format.h"

#include <algorithm>
#include <ostream>
#include <string>

#include "tessera/status.h"
#include "value_text.h"

namespace tessera::cli {
namespace {

// Writes `text` and reports a failed stream (a full disk, a closed pipe) as an error.
arrow::Status Write(std::ostream& out, const std::string& text) {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) return Error(ErrorKind::kIOError, "writing the output failed");
  return arrow::Status::OK();
}

class TablePrinter : public RecordPrinter {
 public:
  explicit TablePrinter(std::ostream& out) : out_(out) {}

  arrow::Status Begin(const arrow::Schema& schema) override {
    for (const auto& field : schema.fields()) {
      names_.push_back(field->name());
      right_align_.push_back(IsNumeric(*field->type()));
      widths_.push_back(DisplayWidth(field->name()));
    }
    return arrow::Status::OK();
  }

  arrow::Status Print(const arrow::RecordBatch& batch) override {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::vector<std::string> cells(batch.num_columns());
      for (int column = 0; column < batch.num_columns(); ++column) {
        AppendDisplayValue(*batch.column(column), row, &cells[column]);
      }
      block_.push_back(std::move(cells));
      if (static_cast<int64_t>(block_.size()) >= kTableBlockRows) {
        ARROW_RETURN_NOT_OK(FlushBlock());
      }
    }
    return arrow::Status::OK();
  }

  arrow::Status Finish() override {
    ARROW_RETURN_NOT_OK(FlushBlock());
    std::string footer = "(" + std::to_string(rows_) + (rows_ == 1 ? " row)\n" : " rows)\n");
    ARROW_RETURN_NOT_OK(Write(out_, footer));
    out_.flush();
    if (!out_) return Error(ErrorKind::kIOError, "writing the output failed");
    return arrow::Status::OK();
  }

 private:
  arrow::Status FlushBlock() {
    for (const auto& cells : block_) {
      for (size_t column = 0; column < cells.size(); ++column) {
        widths_[column] = std::max(widths_[column], DisplayWidth(cells[column]));
      }
    }
    std::string text;
    if (!header_printed_ && !names_.empty()) {
      AppendLine(names_, /*is_header=*/true, &text);
      for (size_t column = 0; column < names_.size(); ++column) {
        if (column > 0) text.push_back('+');
        text.append(widths_[column] + 2, '-');
      }
      text.push_back('\n');
      header_printed_ = true;
    }
    for (const auto& cells : block_) AppendLine(cells, /*is_header=*/false, &text);
    rows_ += static_cast<int64_t>(block_.size());
    block_.clear();
    return Write(out_, text);
  }

  void AppendLine(const std::vector<std::string>& cells, bool is_header, std::string* text) const {
    const size_t line_start = text->size();
    for (size_t column = 0; column < cells.size(); ++column) {
      if (column > 0) text->push_back('|');
      text->push_back(' ');
      const size_t padding = widths_[column] - DisplayWidth(cells[column]);
      const bool right = right_align_[column] && !is_header;
      if (right) text->append(padding, ' ');
      text->append(cells[column]);
      if (!right) text->append(padding, ' ');
      text->push_back(' ');
    }
    // No trailing blanks.
    while (text->size() > line_start && text->back() == ' ') text->pop_back();
    text->push_back('\n');
  }

  std::ostream& out_;
  std::vector<std::string> names_;
  std::vector<bool> right_align_;
  std::vector<size_t> widths_;
  std::vector<std::vector<std::string>> block_;
  bool header_printed_ = false;
  int64_t rows_ = 0;
};

// RFC 4180 quoting: fields holding a separator, a quote or a line break are quoted.
void AppendCsvField(std::string_view field, std::string* out) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

class CsvPrinter : public RecordPrinter {
 public:
  explicit CsvPrinter(std::ostream& out) : out_(out) {}

  arrow::Status Begin(const arrow::Schema& schema) override {
    std::string header;
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (i > 0) header.push_back(',');
      AppendCsvField(schema.field(i)->name(), &header);
    }
    header.push_back('\n');
    return Write(out_, header);
  }

  arrow::Status Print(const arrow::RecordBatch& batch) override {
    std::string text;
    std::string field;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      for (int column = 0; column < batch.num_columns(); ++column) {
        if (column > 0) text.push_back(',');
        const arrow::Array& array = *batch.column(column);
        if (array.IsNull(row)) continue;
        field.clear();
        AppendPlainValue(array, row, &field);
        if (field.empty()) {
          text.append("\"\"");  // an empty value, as opposed to a null
        } else {
          AppendCsvField(field, &text);
        }
      }
      text.push_back('\n');
    }
    return Write(out_, text);
  }

  arrow::Status Finish() override {
    out_.flush();
    if (!out_) return Error(ErrorKind::kIOError, "writing the output failed");
    return arrow::Status::OK();
  }

 private:
  std::ostream& out_;
};

class JsonPrinter : public RecordPrinter {
 public:
  explicit JsonPrinter(std::ostream& out) : out_(out) {}

  arrow::Status Begin(const arrow::Schema& schema) override {
    for (const auto& field : schema.fields()) {
      std::string key;
      AppendJsonString(field->name(), &key);
      key.push_back(':');
      keys_.push_back(std::move(key));
    }
    return arrow::Status::OK();
  }

  arrow::Status Print(const arrow::RecordBatch& batch) override {
    std::string text;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      text.push_back('{');
      for (int column = 0; column < batch.num_columns(); ++column) {
        if (column > 0) text.push_back(',');
        text.append(keys_[column]);
        AppendJsonValue(*batch.column(column), row, &text);
      }
      text.append("}\n");
    }
    return Write(out_, text);
  }

  arrow::Status Finish() override {
    out_.flush();
    if (!out_) return Error(ErrorKind::kIOError, "writing the output failed");
    return arrow::Status::OK();
  }

 private:
  std::ostream& out_;
  std::vector<std::string> keys_;
};

}  // namespace

arrow::Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return InvalidArgument("unknown output format '", name, "': use table, csv or json");
}

std::unique_ptr<RecordPrinter> MakeRecordPrinter(OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::kCsv:
      return std::make_unique<CsvPrinter>(out);
    case OutputFormat::kJson:
      return std::make_unique<JsonPrinter>(out);
    case OutputFormat::kTable:
      break;
  }
  return std::make_unique<TablePrinter>(out);
}

arrow::Status PrintReader(arrow::RecordBatchReader& reader, OutputFormat format,
                          std::ostream& out) {
  auto printer = MakeRecordPrinter(format, out);
  ARROW_RETURN_NOT_OK(printer->Begin(*reader.schema()));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (batch == nullptr) break;
    ARROW_RETURN_NOT_OK(printer->Print(*batch));
  }
  return printer->Finish();
}

arrow::Status PrintBatch(const arrow::RecordBatch& batch, OutputFormat format, std::ostream& out) {
  auto printer = MakeRecordPrinter(format, out);
  ARROW_RETURN_NOT_OK(printer->Begin(*batch.schema()));
  ARROW_RETURN_NOT_OK(printer->Print(batch));
  return printer->Finish();
}

}  // namespace tessera::cli
