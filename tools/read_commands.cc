#include <arrow/builder.h>
#include <arrow/table.h>

#include <algorithm>
#include <charconv>
#include <iostream>

#include "dataset_commands.h"
#include "explain_output.h"
#include "output_format.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"
#include "units.h"
#include "value_text.h"

namespace tessera::cli {
namespace {

struct ScanArguments {
  std::string dataset;
  VersionArgument version;
  std::vector<std::string> columns;
  std::string filter;
  uint64_t limit = 0;
  CLI::Option* limit_option = nullptr;
  bool with_row_address = false;
  bool explain = false;
  std::string format;
};

// One index-aware streaming read (query::Read) for every scan: rows are printed batch by batch, in
// bounded memory, whether indexes answer the filter or not.
arrow::Status RunScan(const ScanArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  dataset::ScanOptions options;
  options.columns = args.columns;
  options.filter = args.filter;
  if (args.limit_option->count() > 0) options.limit = args.limit;
  options.with_row_address = args.with_row_address;
  query::Explain explain;
  ARROW_ASSIGN_OR_RAISE(auto reader, query::Read(query::Snapshot::Make(std::move(snapshot)),
                                                 options, args.explain ? &explain : nullptr));
  if (args.explain) PrintExplain(explain);
  return PrintReader(*reader, format, std::cout);
}

struct TakeArguments {
  std::string dataset;
  VersionArgument version;
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  bool with_row_address = false;
  std::string format;
};

// A row named as FRAGMENT:OFFSET or as the row address scan --with-row-address prints.
arrow::Result<uint64_t> ParseRowAddress(const std::string& text) {
  const auto parse = [](std::string_view digits, uint64_t* value) {
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
    return error == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  };
  const auto invalid = [&] {
    return InvalidArgument("--rows: '", text,
                           "' is not FRAGMENT:OFFSET or a row address (as _rowaddr prints it)");
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    uint64_t address = 0;
    if (!parse(text, &address)) return invalid();
    return address;
  }
  uint64_t fragment = 0;
  uint64_t offset = 0;
  if (!parse(std::string_view(text).substr(0, colon), &fragment) ||
      !parse(std::string_view(text).substr(colon + 1), &offset) || fragment > UINT32_MAX ||
      offset > UINT32_MAX) {
    return invalid();
  }
  return dataset::MakeRowAddress(static_cast<uint32_t>(fragment), static_cast<uint32_t>(offset));
}

// The rows in the order given, duplicates included, each read from the pages (or, in external
// Parquet files, the row groups) holding it.
arrow::Status RunTake(const TakeArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  std::vector<uint64_t> addresses;
  for (const auto& row : args.rows) {
    ARROW_ASSIGN_OR_RAISE(uint64_t address, ParseRowAddress(row));
    addresses.push_back(address);
  }
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  ARROW_ASSIGN_OR_RAISE(auto table, snapshot->Take(addresses, args.columns));
  if (args.with_row_address) {
    arrow::UInt64Builder builder;
    ARROW_RETURN_NOT_OK(builder.AppendValues(addresses));
    ARROW_ASSIGN_OR_RAISE(auto column, builder.Finish());
    ARROW_ASSIGN_OR_RAISE(
        table, table->AddColumn(table->num_columns(),
                                arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false),
                                std::make_shared<arrow::ChunkedArray>(column)));
  }
  arrow::TableBatchReader reader(*table);
  return PrintReader(reader, format, std::cout);
}

struct CountArguments {
  std::string dataset;
  VersionArgument version;
  std::string filter;
  bool explain = false;
};

arrow::Status RunCount(const CountArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  query::Explain explain;
  ARROW_ASSIGN_OR_RAISE(uint64_t rows,
                        query::Count(*query::Snapshot::Make(std::move(snapshot)), args.filter,
                                     args.explain ? &explain : nullptr));
  if (args.explain) PrintExplain(explain);
  std::cout << rows << std::endl;
  return arrow::Status::OK();
}

struct InfoArguments {
  std::string dataset;
  VersionArgument version;
  std::string format;
};

struct Summary {
  uint64_t latest_version = 0;
  uint64_t physical_rows = 0;
  uint64_t deleted_rows = 0;
  uint64_t data_files = 0;
  uint64_t data_bytes = 0;
};

arrow::Result<Summary> Summarize(const dataset::Dataset& snapshot) {
  Summary summary;
  ARROW_ASSIGN_OR_RAISE(auto latest, snapshot.Latest());
  summary.latest_version = latest->version();
  for (const auto& fragment : snapshot.manifest().fragments()) {
    summary.physical_rows += fragment.physical_rows();
    if (fragment.has_deletion()) summary.deleted_rows += fragment.deletion().num_deleted();
    for (const auto& file : fragment.files()) {
      ++summary.data_files;
      summary.data_bytes += file.size_bytes();
    }
  }
  return summary;
}

std::chrono::system_clock::time_point CreatedAt(const dataset::Dataset& snapshot) {
  return std::chrono::system_clock::time_point(
      std::chrono::microseconds(snapshot.manifest().created_at_micros()));
}

void PrintInfoText(const dataset::Dataset& snapshot, const Summary& summary) {
  std::cout << "dataset:    " << snapshot.uri() << "\n";
  std::cout << "version:    " << snapshot.version();
  if (summary.latest_version == snapshot.version()) {
    std::cout << " (latest)\n";
  } else {
    std::cout << " (latest is " << summary.latest_version << ")\n";
  }
  std::cout << "created:    " << FormatTime(CreatedAt(snapshot)) << "\n";
  std::cout << "operation:  " << snapshot.manifest().operation() << "\n";
  std::cout << "rows:       " << snapshot.CountRows() << " (" << summary.physical_rows
            << " physical, " << summary.deleted_rows << " deleted)\n";
  std::cout << "fragments:  " << snapshot.manifest().fragments_size() << "\n";
  std::cout << "data size:  " << FormatBytes(summary.data_bytes) << " (" << summary.data_bytes
            << " bytes in " << Quantity(summary.data_files, "file") << ")\n";
  const auto indexes = index::ListIndexes(snapshot);
  std::cout << "indexes:    " << indexes.size();
  for (size_t i = 0; i < indexes.size(); ++i) {
    std::cout << (i == 0 ? " (" : ", ") << indexes[i].name << ": " << indexes[i].family << " on "
              << indexes[i].column << (i + 1 == indexes.size() ? ")" : "");
  }
  std::cout << "\n";
  std::cout << "schema:\n";

  const auto& fields = snapshot.schema()->fields();
  size_t id_width = std::string("field id").size();
  size_t name_width = std::string("name").size();
  for (size_t i = 0; i < fields.size(); ++i) {
    id_width = std::max(id_width, std::to_string(snapshot.field_ids()[i]).size());
    name_width = std::max(name_width, DisplayWidth(fields[i]->name()));
  }
  auto pad = [](const std::string& text, size_t width) {
    return text + std::string(width - std::min(width, DisplayWidth(text)), ' ');
  };
  std::cout << "  " << pad("field id", id_width) << "  " << pad("name", name_width) << "  type\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    std::cout << "  " << pad(std::to_string(snapshot.field_ids()[i]), id_width) << "  "
              << pad(fields[i]->name(), name_width) << "  " << fields[i]->type()->ToString()
              << (fields[i]->nullable() ? "" : " not null") << "\n";
  }
}

void PrintInfoJson(const dataset::Dataset& snapshot, const Summary& summary) {
  std::string text = "{\"dataset\":";
  AppendJsonString(snapshot.uri(), &text);
  text += ",\"version\":" + std::to_string(snapshot.version());
  text += ",\"latest_version\":" + std::to_string(summary.latest_version);
  text += ",\"created\":";
  AppendJsonString(FormatTime(CreatedAt(snapshot)), &text);
  text += ",\"operation\":";
  AppendJsonString(snapshot.manifest().operation(), &text);
  text += ",\"rows\":" + std::to_string(snapshot.CountRows());
  text += ",\"physical_rows\":" + std::to_string(summary.physical_rows);
  text += ",\"deleted_rows\":" + std::to_string(summary.deleted_rows);
  text += ",\"fragments\":" + std::to_string(snapshot.manifest().fragments_size());
  text += ",\"data_files\":" + std::to_string(summary.data_files);
  text += ",\"data_bytes\":" + std::to_string(summary.data_bytes);
  text += ",\"indexes\":[";
  const auto indexes = index::ListIndexes(snapshot);
  for (size_t i = 0; i < indexes.size(); ++i) {
    text += i > 0 ? ",{\"name\":" : "{\"name\":";
    AppendJsonString(indexes[i].name, &text);
    text += ",\"column\":";
    AppendJsonString(indexes[i].column, &text);
    text += ",\"type\":";
    AppendJsonString(indexes[i].family, &text);
    text += "}";
  }
  text += "]";
  text += ",\"schema\":[";
  const auto& fields = snapshot.schema()->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) text += ",";
    text += "{\"field_id\":" + std::to_string(snapshot.field_ids()[i]) + ",\"name\":";
    AppendJsonString(fields[i]->name(), &text);
    text += ",\"type\":";
    AppendJsonString(fields[i]->type()->ToString(), &text);
    text += std::string(",\"nullable\":") + (fields[i]->nullable() ? "true" : "false") + "}";
  }
  text += "]}\n";
  std::cout << text;
}

arrow::Status RunInfo(const InfoArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  ARROW_ASSIGN_OR_RAISE(Summary summary, Summarize(*snapshot));
  if (args.format == "json") {
    PrintInfoJson(*snapshot, summary);
  } else {
    PrintInfoText(*snapshot, summary);
  }
  std::cout.flush();
  if (!std::cout) return Error(ErrorKind::kIOError, "writing the output failed");
  return arrow::Status::OK();
}

struct VersionsArguments {
  std::string dataset;
  VersionArgument version;
  std::string format;
};

// The history as a record batch, so it prints in every output format.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> VersionsBatch(
    const std::vector<dataset::VersionInfo>& versions, uint64_t up_to) {
  arrow::UInt64Builder version_builder;
  arrow::TimestampBuilder created_builder(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                          arrow::default_memory_pool());
  arrow::StringBuilder operation_builder;
  arrow::UInt64Builder rows_builder;
  arrow::UInt64Builder fragments_builder;
  for (const auto& info : versions) {
    if (info.version > up_to) continue;
    ARROW_RETURN_NOT_OK(version_builder.Append(info.version));
    if (!info.unreadable.empty()) {
      // Listed, so the history has no silent gap; what it holds is unknown.
      ARROW_RETURN_NOT_OK(created_builder.AppendNull());
      ARROW_RETURN_NOT_OK(operation_builder.Append("unreadable"));
      ARROW_RETURN_NOT_OK(rows_builder.AppendNull());
      ARROW_RETURN_NOT_OK(fragments_builder.AppendNull());
      continue;
    }
    ARROW_RETURN_NOT_OK(created_builder.Append(
        std::chrono::duration_cast<std::chrono::microseconds>(info.created.time_since_epoch())
            .count()));
    ARROW_RETURN_NOT_OK(operation_builder.Append(info.operation));
    ARROW_RETURN_NOT_OK(rows_builder.Append(info.num_rows));
    ARROW_RETURN_NOT_OK(fragments_builder.Append(info.num_fragments));
  }
  const int64_t length = version_builder.length();
  std::vector<std::shared_ptr<arrow::Array>> columns(5);
  ARROW_RETURN_NOT_OK(version_builder.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(created_builder.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(operation_builder.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(rows_builder.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(fragments_builder.Finish(&columns[4]));
  auto schema = arrow::schema(
      {arrow::field("version", arrow::uint64()), arrow::field("created", columns[1]->type()),
       arrow::field("operation", arrow::utf8()), arrow::field("rows", arrow::uint64()),
       arrow::field("fragments", arrow::uint64())});
  return arrow::RecordBatch::Make(schema, length, std::move(columns));
}

arrow::Status RunVersions(const VersionsArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  // Without --version, no version is opened first: the listing works when the latest manifest
  // is damaged, and shows it as unreadable.
  std::vector<dataset::VersionInfo> versions;
  if (args.version.get()) {
    ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
    ARROW_ASSIGN_OR_RAISE(versions, snapshot->ListVersions());
  } else {
    ARROW_ASSIGN_OR_RAISE(versions, dataset::Dataset::ListVersionsAt(args.dataset));
  }
  // With --version V: the history as it was when V was the latest.
  const uint64_t up_to = args.version.get().value_or(UINT64_MAX);
  for (const auto& info : versions) {
    if (info.unreadable.empty() || info.version > up_to) continue;
    std::cerr << "warning: version " << info.version << " cannot be read: " << info.unreadable
              << std::endl;
  }
  ARROW_ASSIGN_OR_RAISE(auto batch, VersionsBatch(versions, up_to));
  return PrintBatch(*batch, format, std::cout);
}

}  // namespace

void AddReadCommands(CommandSet& commands) {
  {
    auto args = std::make_shared<ScanArguments>();
    CLI::App* command =
        commands.Add("scan", "Print rows of a version", [args] { return RunScan(*args); });
    AddDatasetArgument(command, &args->dataset);
    command->add_option("--columns", args->columns, "Columns to print, comma-separated")
        ->delimiter(',')
        ->type_name("COLUMN");
    AddWhereOption(command, &args->filter, "omit --where to print every row");
    args->limit_option =
        command->add_option("--limit", args->limit, "Print at most N rows (after filtering)")
            ->check(IntegerAtLeast<uint64_t>(0));
    command->add_flag("--with-row-address", args->with_row_address,
                      "Add the column _rowaddr: (fragment id << 32) | row offset");
    command->add_flag("--explain", args->explain,
                      "Print which index or scan answered each group of fragments, on standard "
                      "error");
    AddFormatOption(command, &args->format, {"table", "csv", "json"});
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<TakeArguments>();
    CLI::App* command =
        commands.Add("take", "Print rows by address, in the order given (duplicates allowed)",
                     [args] { return RunTake(*args); });
    AddDatasetArgument(command, &args->dataset);
    command
        ->add_option("--rows", args->rows,
                     "Rows as FRAGMENT:OFFSET or row addresses (_rowaddr), comma-separated")
        ->required()
        ->delimiter(',')
        ->type_name("ROW");
    command->add_option("--columns", args->columns, "Columns to print, comma-separated")
        ->delimiter(',')
        ->type_name("COLUMN");
    command->add_flag("--with-row-address", args->with_row_address,
                      "Add the column _rowaddr: (fragment id << 32) | row offset");
    AddFormatOption(command, &args->format, {"table", "csv", "json"});
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<CountArguments>();
    CLI::App* command = commands.Add("count", "Count the rows of a version (matching a filter)",
                                     [args] { return RunCount(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddWhereOption(command, &args->filter, "omit --where to count every row");
    command->add_flag("--explain", args->explain,
                      "Print which index or scan answered each group of fragments, on standard "
                      "error");
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<InfoArguments>();
    CLI::App* command =
        commands.Add("info", "Describe a version: rows, fragments, size, schema with field ids",
                     [args] { return RunInfo(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddFormatOption(command, &args->format, {"table", "json"});
    AddVersionOption(command, &args->version);
  }
  {
    auto args = std::make_shared<VersionsArguments>();
    CLI::App* command = commands.Add("versions", "List the versions of a dataset",
                                     [args] { return RunVersions(*args); });
    AddDatasetArgument(command, &args->dataset);
    AddFormatOption(command, &args->format, {"table", "csv", "json"});
    AddVersionOption(command, &args->version);
  }
}

}  // namespace tessera::cli
