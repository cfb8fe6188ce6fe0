#include "tessera/server/process_list.h"

#include <arrow/builder.h>

#include <algorithm>

#include "tessera/sql/execution.h"

namespace tessera::server {

namespace {

void SortById(std::vector<ProcessRow>& rows) {
  std::sort(rows.begin(), rows.end(),
            [](const ProcessRow& a, const ProcessRow& b) { return a.id < b.id; });
}

arrow::Status AppendOrNull(arrow::StringBuilder& builder, const std::string& value) {
  return value.empty() ? builder.AppendNull() : builder.Append(value);
}

}  // namespace

std::shared_ptr<arrow::Table> ShowProcessListTable(std::vector<ProcessRow> rows) {
  SortById(rows);
  std::vector<std::vector<std::string>> text;
  for (const ProcessRow& row : rows) {
    text.push_back({std::to_string(row.id), row.user, row.host, row.database, row.command,
                    std::to_string(row.seconds), row.state, row.info});
  }
  return sql::StringTable({"Id", "User", "Host", "db", "Command", "Time", "State", "Info"}, text);
}

arrow::Result<std::shared_ptr<arrow::Table>> InformationSchemaProcessList(
    std::vector<ProcessRow> rows) {
  SortById(rows);
  arrow::UInt64Builder id;
  arrow::StringBuilder user, host, database, command, state, info;
  arrow::Int64Builder seconds;
  arrow::DoubleBuilder progress;
  for (const ProcessRow& row : rows) {
    ARROW_RETURN_NOT_OK(id.Append(row.id));
    ARROW_RETURN_NOT_OK(user.Append(row.user));
    ARROW_RETURN_NOT_OK(host.Append(row.host));
    ARROW_RETURN_NOT_OK(AppendOrNull(database, row.database));
    ARROW_RETURN_NOT_OK(command.Append(row.command));
    ARROW_RETURN_NOT_OK(seconds.Append(row.seconds));
    ARROW_RETURN_NOT_OK(AppendOrNull(state, row.state));
    ARROW_RETURN_NOT_OK(AppendOrNull(info, row.info));
    ARROW_RETURN_NOT_OK(row.progress ? progress.Append(*row.progress) : progress.AppendNull());
  }
  arrow::ArrayVector columns(9);
  ARROW_RETURN_NOT_OK(id.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(user.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(host.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(database.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(command.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(seconds.Finish(&columns[5]));
  ARROW_RETURN_NOT_OK(state.Finish(&columns[6]));
  ARROW_RETURN_NOT_OK(info.Finish(&columns[7]));
  ARROW_RETURN_NOT_OK(progress.Finish(&columns[8]));
  auto schema = arrow::schema({
      arrow::field("ID", arrow::uint64(), false),
      arrow::field("USER", arrow::utf8(), false),
      arrow::field("HOST", arrow::utf8(), false),
      arrow::field("DB", arrow::utf8()),
      arrow::field("COMMAND", arrow::utf8(), false),
      arrow::field("TIME", arrow::int64(), false),
      arrow::field("STATE", arrow::utf8()),
      arrow::field("INFO", arrow::utf8()),
      arrow::field("PROGRESS", arrow::float64()),
  });
  return arrow::Table::Make(std::move(schema), columns);
}

}  // namespace tessera::server
