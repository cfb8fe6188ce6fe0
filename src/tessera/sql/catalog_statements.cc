// SHOW DATABASES / TABLES / VERSIONS, DESCRIBE, USE, CREATE / DROP DATABASE, DROP TABLE, and
// the pinning of a table's version that every statement reading a table starts with.
#include <arrow/builder.h>

#include <chrono>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/temporal.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/names.h"

namespace tessera::sql {

std::shared_ptr<arrow::Table> StringTable(const std::vector<std::string>& columns,
                                          const std::vector<std::vector<std::string>>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < columns.size(); ++c) {
    arrow::StringBuilder builder;
    for (const auto& row : rows) {
      if (!builder.Append(row[c]).ok()) std::abort();  // only fails on allocation
    }
    std::shared_ptr<arrow::Array> array;
    if (!builder.Finish(&array).ok()) std::abort();
    fields.push_back(arrow::field(columns[c], arrow::utf8()));
    arrays.push_back(std::move(array));
  }
  return arrow::Table::Make(arrow::schema(fields), arrays, static_cast<int64_t>(rows.size()));
}

namespace {

int64_t MicrosSinceEpoch(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}

// The version that was the latest at `timestamp` (UTC): the newest created at or before it.
arrow::Result<uint64_t> VersionAsOf(const ExecutionContext& context, const TableLocation& location,
                                    const TimeTravel& time_travel) {
  const auto nanoseconds = expr::ParseTimestamp(*time_travel.timestamp);
  if (!nanoseconds) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(time_travel.position), "invalid timestamp '", *time_travel.timestamp,
                    "' in FOR TIMESTAMP AS OF; write 'YYYY-MM-DD HH:MM:SS[.ffffff]' (UTC)");
  }
  ARROW_ASSIGN_OR_RAISE(auto latest, dataset::Dataset::Open(location.uri));
  ARROW_ASSIGN_OR_RAISE(auto versions, latest->ListVersions());
  std::optional<uint64_t> found;
  for (const auto& info : versions) {
    const int64_t created = MicrosSinceEpoch(info.created);
    if (info.unreadable.empty() && created * 1000 <= *nanoseconds &&
        (!found || info.version > *found)) {
      found = info.version;
    }
  }
  if (!found) {
    return SqlError(SqlCode::kNotFound, ErrorKind::kNotFound, context.At(time_travel.position),
                    "table '", location.Qualified(), "' has no version as of ",
                    *time_travel.timestamp,
                    " (UTC): its first version is newer; SHOW VERSIONS FROM ", location.Qualified(),
                    " lists them");
  }
  return *found;
}

}  // namespace

arrow::Result<std::optional<std::shared_ptr<arrow::Table>>> InformationSchemaTable(
    const ExecutionContext& context, const ObjectName& name, const TimeTravel& time_travel) {
  if (context.information_schema == nullptr || !*context.information_schema ||
      name.parts.size() != 2 || AsciiLower(name.parts[0]) != "information_schema") {
    return std::nullopt;
  }
  if (time_travel.version || time_travel.timestamp) {
    return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kInvalidArgument,
                    context.At(time_travel.position), "information_schema.", name.parts[1],
                    " has no versions: it shows the server as it is now");
  }
  auto rows = (*context.information_schema)(AsciiLower(name.parts[1]));
  if (!rows.ok() && KindOf(rows.status()) == ErrorKind::kNotFound) {
    return SqlError(SqlCode::kUnknownInformationSchemaTable, ErrorKind::kNotFound,
                    context.At(name.position), "Unknown table '", name.parts[1],
                    "' in information_schema (this server offers PROCESSLIST)");
  }
  ARROW_ASSIGN_OR_RAISE(auto table, std::move(rows));
  return std::optional<std::shared_ptr<arrow::Table>>(std::move(table));
}

arrow::Result<PinnedTable> PinTable(const ExecutionContext& context, const ObjectName& name,
                                    const TimeTravel& time_travel, Access access) {
  auto location = context.catalog.ResolveTable(name, context.current_database);
  if (!location.ok()) {
    return Prefixed(location.status(), context.At(name.position));
  }
  RETURN_NOT_OK(context.Authorize(access, location->database, location->table));
  std::optional<uint64_t> version = time_travel.version;
  if (time_travel.timestamp) {
    ARROW_ASSIGN_OR_RAISE(version, VersionAsOf(context, *location, time_travel));
  }
  // A worker's statement reads its target at the admitted version, never at a later one.
  const MutationHooks* mutation = context.mutation;
  if (mutation != nullptr && !mutation->preflight && mutation->admission && !version &&
      mutation->admission->table_uri == location->uri && mutation->admission->version > 0) {
    auto admitted = query::Snapshot::Open(location->uri, mutation->admission->version);
    if (!admitted.ok()) {
      return Error(ErrorKind::kStale, "StaleAdmission: version ", mutation->admission->version,
                   " of table '", location->Qualified(), "', which the statement was admitted at, ",
                   "cannot be opened (", admitted.status().message(),
                   "); nothing was done, run the statement again");
    }
    return PinnedTable{std::move(*location), std::move(*admitted)};
  }
  auto snapshot = query::Snapshot::Open(location->uri, version);
  if (!snapshot.ok()) {
    if (version && KindOf(snapshot.status()) == ErrorKind::kNotFound) {
      return SqlError(SqlCode::kNotFound, ErrorKind::kNotFound, context.At(time_travel.position),
                      "table '", location->Qualified(), "' has no version ", *version,
                      "; SHOW VERSIONS FROM ", location->Qualified(), " lists them");
    }
    return snapshot.status();
  }
  return PinnedTable{std::move(*location), std::move(*snapshot)};
}

arrow::Result<StatementResult> ExecuteShowDatabases(ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto databases, context.catalog.Databases());
  std::vector<std::vector<std::string>> rows;
  for (auto& database : databases) rows.push_back({std::move(database)});
  StatementResult result;
  result.rows = StringTable({"Database"}, rows);
  return result;
}

namespace {

arrow::Result<std::string> DatabaseOrCurrent(const ExecutionContext& context,
                                             const std::optional<std::string>& database) {
  if (database) return context.catalog.ResolveDatabase(*database);
  if (context.current_database.empty()) {
    return SqlError(SqlCode::kNoDatabaseSelected, ErrorKind::kInvalidArgument,
                    "No database selected; USE db first or write FROM db");
  }
  return context.catalog.ResolveDatabase(context.current_database);
}

}  // namespace

arrow::Result<StatementResult> ExecuteShowTables(const ShowTablesStatement& statement,
                                                 ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto database, DatabaseOrCurrent(context, statement.database));
  ARROW_ASSIGN_OR_RAISE(auto tables, context.catalog.Tables(database));
  std::vector<std::vector<std::string>> rows;
  for (auto& table : tables) {
    rows.push_back({std::move(table)});
    if (statement.full) rows.back().push_back("BASE TABLE");
  }
  StatementResult result;
  std::vector<std::string> columns = {"Tables_in_" + database};
  if (statement.full) columns.push_back("Table_type");
  result.rows = StringTable(columns, rows);
  return result;
}

arrow::Result<StatementResult> ExecuteShowVersions(const ShowVersionsStatement& statement,
                                                   ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kShow));
  ARROW_ASSIGN_OR_RAISE(auto versions, pinned.snapshot->dataset().ListVersions());
  arrow::UInt64Builder version_column, rows_column, fragments_column;
  arrow::TimestampBuilder created_column(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                         arrow::default_memory_pool());
  arrow::StringBuilder operation_column, error_column;
  for (const auto& info : versions) {
    RETURN_NOT_OK(version_column.Append(info.version));
    RETURN_NOT_OK(created_column.Append(MicrosSinceEpoch(info.created)));
    RETURN_NOT_OK(operation_column.Append(info.operation));
    RETURN_NOT_OK(rows_column.Append(info.num_rows));
    RETURN_NOT_OK(fragments_column.Append(info.num_fragments));
    if (info.unreadable.empty()) {
      RETURN_NOT_OK(error_column.AppendNull());
    } else {
      RETURN_NOT_OK(error_column.Append(info.unreadable));
    }
  }
  arrow::ArrayVector arrays(6);
  RETURN_NOT_OK(version_column.Finish(&arrays[0]));
  RETURN_NOT_OK(created_column.Finish(&arrays[1]));
  RETURN_NOT_OK(operation_column.Finish(&arrays[2]));
  RETURN_NOT_OK(rows_column.Finish(&arrays[3]));
  RETURN_NOT_OK(fragments_column.Finish(&arrays[4]));
  RETURN_NOT_OK(error_column.Finish(&arrays[5]));
  auto schema = arrow::schema(
      {arrow::field("Version", arrow::uint64()), arrow::field("CreatedAt", arrays[1]->type()),
       arrow::field("Operation", arrow::utf8()), arrow::field("Rows", arrow::uint64()),
       arrow::field("Fragments", arrow::uint64()), arrow::field("Error", arrow::utf8())});
  StatementResult result;
  result.rows = arrow::Table::Make(schema, arrays);
  return result;
}

arrow::Result<StatementResult> ExecuteDescribe(const DescribeStatement& statement,
                                               ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kShow));
  std::vector<std::vector<std::string>> rows;
  for (const auto& field : pinned.snapshot->schema()->fields()) {
    rows.push_back({field->name(), field->type()->ToString(), field->nullable() ? "YES" : "NO"});
  }
  StatementResult result;
  result.rows = StringTable({"Field", "Type", "Null"}, rows);
  result.version = pinned.snapshot->version();
  return result;
}

arrow::Result<StatementResult> ExecuteUse(const UseStatement& statement,
                                          ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(context.current_database,
                        context.catalog.ResolveDatabase(statement.database));
  StatementResult result;
  result.info = "Database changed";
  result.info_only = true;
  return result;
}

arrow::Result<StatementResult> ExecuteCreateDatabase(const CreateDatabaseStatement& statement,
                                                     ExecutionContext& context) {
  RETURN_NOT_OK(context.Authorize(Access::kAlter, statement.database));
  ARROW_ASSIGN_OR_RAISE(
      bool created, context.catalog.CreateDatabase(statement.database, statement.if_not_exists));
  StatementResult result;
  result.affected_rows = created ? 1 : 0;
  if (!created) result.info = "database '" + statement.database + "' exists";
  return result;
}

arrow::Result<StatementResult> ExecuteDropDatabase(const DropDatabaseStatement& statement,
                                                   ExecutionContext& context) {
  auto database = context.catalog.ResolveDatabase(statement.database);
  RETURN_NOT_OK(context.Authorize(Access::kAlter, database.ok() ? *database : statement.database));
  ARROW_ASSIGN_OR_RAISE(auto dropped,
                        context.catalog.DropDatabase(statement.database, statement.if_exists));
  StatementResult result;
  if (!dropped) result.info = "database '" + statement.database + "' does not exist";
  return result;
}

arrow::Result<StatementResult> ExecuteDropTable(const DropTableStatement& statement,
                                                ExecutionContext& context) {
  auto location = context.catalog.ResolveTable(statement.table, context.current_database);
  if (location.ok())
    RETURN_NOT_OK(context.Authorize(Access::kAlter, location->database, location->table));
  ARROW_ASSIGN_OR_RAISE(
      auto dropped,
      context.catalog.DropTable(statement.table, context.current_database, statement.if_exists));
  StatementResult result;
  if (!dropped) result.info = "table '" + statement.table.ToString() + "' does not exist";
  return result;
}

}  // namespace tessera::sql
