// SELECT, CREATE TABLE AS, INSERT, DELETE and EXPLAIN: the statements that read or write rows.
#include <arrow/acero/exec_plan.h>
#include <arrow/compute/cast.h>

#include <algorithm>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/binder.h"
#include "tessera/expr/diagnostics.h"
#include "tessera/expr/parser.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/names.h"
#include "tessera/sql/query_planner.h"
#include "tessera/sql/syntax_tools.h"

namespace tessera::sql {

namespace {

// The rows of a query with the names and types of a table's columns, by position (as MySQL's
// INSERT ... SELECT): each column cast to the table's type, failing on values that do not fit.
class ConformingRows : public arrow::RecordBatchReader {
 public:
  ConformingRows(std::shared_ptr<arrow::RecordBatchReader> rows,
                 std::shared_ptr<arrow::Schema> target)
      : rows_(std::move(rows)), target_(std::move(target)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return target_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    RETURN_NOT_OK(rows_->ReadNext(&batch));
    if (batch == nullptr) {
      *out = nullptr;
      return arrow::Status::OK();
    }
    arrow::ArrayVector columns;
    for (int i = 0; i < target_->num_fields(); ++i) {
      auto column = batch->column(i);
      const auto& type = target_->field(i)->type();
      if (!column->type()->Equals(*type)) {
        auto cast = arrow::compute::Cast(*column, type);
        if (!cast.ok()) {
          return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, "column '",
                          target_->field(i)->name(), "' is ", type->ToString(),
                          "; the query's column ", i + 1, " (", column->type()->ToString(),
                          ") does not convert: ", cast.status().message());
        }
        column = *cast;
      }
      columns.push_back(std::move(column));
    }
    *out = arrow::RecordBatch::Make(target_, batch->num_rows(), std::move(columns));
    return arrow::Status::OK();
  }

  arrow::Status Close() override { return rows_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> rows_;
  std::shared_ptr<arrow::Schema> target_;
};

// Counts the rows passing through.
class CountingRows : public arrow::RecordBatchReader {
 public:
  CountingRows(std::shared_ptr<arrow::RecordBatchReader> rows, uint64_t* count)
      : rows_(std::move(rows)), count_(count) {}
  std::shared_ptr<arrow::Schema> schema() const override { return rows_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    RETURN_NOT_OK(rows_->ReadNext(out));
    if (*out != nullptr) *count_ += static_cast<uint64_t>((*out)->num_rows());
    return arrow::Status::OK();
  }
  arrow::Status Close() override { return rows_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> rows_;
  uint64_t* count_;
};

// The WHERE of a DELETE as filter text, bound here so that errors point into the statement.
// Column names match the table's case-insensitively (as in SELECT) and are rewritten to the
// schema's spelling, which the filter language matches exactly.
arrow::Result<std::string> DeleteFilter(const DeleteStatement& statement,
                                        const arrow::Schema& schema,
                                        const ExecutionContext& context) {
  if (statement.where == nullptr) return std::string("true");
  auto where = CloneSyntax(*statement.where);
  std::vector<expr::SyntaxNode*> stack = {where.get()};
  while (!stack.empty()) {
    expr::SyntaxNode* node = stack.back();
    stack.pop_back();
    if (node->kind == expr::SyntaxNode::Kind::kColumn) {
      if (!node->qualifier.empty()) {
        return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kInvalidArgument,
                        context.At(node->position),
                        "DELETE's WHERE names the table's columns unqualified: write ", node->name,
                        ", not ", node->qualifier, ".", node->name);
      }
      if (schema.GetFieldIndex(node->name) < 0) {
        const auto& fields = schema.fields();
        auto folded = std::find_if(fields.begin(), fields.end(), [&](const auto& field) {
          return SameName(field->name(), node->name);
        });
        if (folded == fields.end()) {
          const std::string hint =
              expr::DidYouMean(expr::ClosestNames(node->name, schema.field_names()));
          return SqlError(SqlCode::kUnknownColumn, ErrorKind::kInvalidArgument,
                          context.At(node->position), "Unknown column '", node->name,
                          "' in 'where clause'", hint.empty() ? "" : "; " + hint);
        }
        node->name = (*folded)->name();
      }
    }
    if (IsAggregateCall(*node)) {
      return SqlError(SqlCode::kInvalidGroupFunction, ErrorKind::kInvalidArgument,
                      context.At(node->position),
                      "Invalid use of group function in DELETE's WHERE");
    }
    if (node->kind == expr::SyntaxNode::Kind::kCall && !IsKnownFunctionName(node->name)) {
      return UnknownFunctionError(*node, context);
    }
    for (const auto& child : node->children) stack.push_back(child.get());
  }
  ARROW_ASSIGN_OR_RAISE(
      auto bound,
      expr::Bind(*where, std::make_shared<arrow::Schema>(schema.fields()), context.source()));
  return bound->ToString();
}

}  // namespace

arrow::Result<StatementResult> ExecuteSelect(const SelectStatement& statement,
                                             ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanSelect(statement, context));
  StatementResult result;
  ARROW_ASSIGN_OR_RAISE(result.rows, RunQuery(std::move(planned)));
  return result;
}

arrow::Result<StatementResult> ExecuteCreateTableAs(const CreateTableAsStatement& statement,
                                                    ExecutionContext& context) {
  auto location = context.catalog.NewTable(statement.table, context.current_database);
  if (!location.ok()) {
    if (statement.if_not_exists && CodeOf(location.status()) == SqlCode::kTableExists) {
      StatementResult result;
      result.info = "table '" + statement.table.ToString() + "' exists; nothing done";
      return result;
    }
    return Prefixed(location.status(), context.At(statement.table.position));
  }
  RETURN_NOT_OK(context.Authorize(Access::kAlter, location->database, location->table));
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanSelect(*statement.query, context));
  ARROW_ASSIGN_OR_RAISE(const bool stop, context.AtMutatingCall({location->uri, 0, ""}));
  if (stop) return StatementResult{};
  ARROW_ASSIGN_OR_RAISE(auto rows, StartQuery(std::move(planned)));
  uint64_t count = 0;
  auto counted = std::make_shared<CountingRows>(rows, &count);
  ARROW_ASSIGN_OR_RAISE(auto created, dataset::Dataset::Create(location->uri, counted));
  StatementResult result;
  result.affected_rows = count;
  result.version = created->version();
  return result;
}

arrow::Result<StatementResult> ExecuteInsert(const InsertStatement& statement,
                                             ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kAlter));
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanSelect(*statement.query, context));
  const auto& target = pinned.snapshot->schema();
  if (planned.column_names.size() != static_cast<size_t>(target->num_fields())) {
    return SqlError(SqlCode::kColumnCountMismatch, ErrorKind::kInvalidArgument,
                    context.At(statement.query->position), "Column count doesn't match: table '",
                    pinned.location.Qualified(), "' has ", target->num_fields(),
                    " columns, the query returns ", planned.column_names.size());
  }
  const dataset::Dataset& dataset = pinned.snapshot->dataset();
  ARROW_ASSIGN_OR_RAISE(const bool stop,
                        context.AtMutatingCall({pinned.location.uri, dataset.version(),
                                                SchemaContract(dataset, nullptr)}));
  if (stop) return StatementResult{};
  ARROW_ASSIGN_OR_RAISE(auto rows, StartQuery(std::move(planned)));
  uint64_t count = 0;
  auto conformed = std::make_shared<CountingRows>(
      std::make_shared<ConformingRows>(std::move(rows), target), &count);
  ARROW_ASSIGN_OR_RAISE(auto appended, pinned.snapshot->dataset().Append(conformed));
  StatementResult result;
  result.affected_rows = count;
  result.version = appended->version();
  return result;
}

arrow::Result<StatementResult> ExecuteDelete(const DeleteStatement& statement,
                                             ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kAlter));
  const query::Snapshot& snapshot = *pinned.snapshot;
  ARROW_ASSIGN_OR_RAISE(auto filter, DeleteFilter(statement, *snapshot.schema(), context));
  ARROW_ASSIGN_OR_RAISE(const bool stop,
                        context.AtMutatingCall({pinned.location.uri, snapshot.dataset().version(),
                                                SchemaContract(snapshot.dataset(), nullptr)}));
  if (stop) return StatementResult{};
  ARROW_ASSIGN_OR_RAISE(auto deleted, query::Delete(snapshot, filter));
  StatementResult result;
  result.affected_rows = snapshot.dataset().CountRows() - deleted->CountRows();
  result.version = deleted->version();
  return result;
}

namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

arrow::Result<std::vector<std::string>> ExplainQuery(const SelectStatement& query,
                                                     const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanSelect(query, context));
  std::vector<std::string> lines = planned.explain;
  if (planned.offset > 0 || planned.limit) {
    lines.push_back(
        Concat("offset ", planned.offset, planned.limit ? Concat(", limit ", *planned.limit) : ""));
  }
  lines.push_back("plan:");
  ARROW_ASSIGN_OR_RAISE(auto plan, arrow::acero::DeclarationToString(planned.declaration));
  for (auto& line : Lines(plan)) {
    for (size_t tab = line.find('\t'); tab != std::string::npos; tab = line.find('\t', tab)) {
      line.replace(tab, 1, "  ");
    }
    lines.push_back("  " + line);
  }
  return lines;
}

}  // namespace

arrow::Result<StatementResult> ExecuteExplain(const ExplainStatement& statement,
                                              ExecutionContext& context) {
  std::vector<std::string> lines;
  const auto& body = statement.statement.body;
  if (const auto* select = std::get_if<SelectStatement>(&body)) {
    ARROW_ASSIGN_OR_RAISE(lines, ExplainQuery(*select, context));
  } else if (const auto* insert = std::get_if<InsertStatement>(&body)) {
    ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, insert->table));
    lines.push_back(Concat("append to ", pinned.location.Qualified(), " version ",
                           pinned.snapshot->version(), " the rows of:"));
    ARROW_ASSIGN_OR_RAISE(auto query, ExplainQuery(*insert->query, context));
    lines.insert(lines.end(), query.begin(), query.end());
  } else if (const auto* create = std::get_if<CreateTableAsStatement>(&body)) {
    lines.push_back("create table " + create->table.ToString() + " from the rows of:");
    ARROW_ASSIGN_OR_RAISE(auto query, ExplainQuery(*create->query, context));
    lines.insert(lines.end(), query.begin(), query.end());
  } else if (const auto* remove = std::get_if<DeleteStatement>(&body)) {
    ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, remove->table));
    ARROW_ASSIGN_OR_RAISE(auto filter, DeleteFilter(*remove, *pinned.snapshot->schema(), context));
    query::Explain explain;
    ARROW_ASSIGN_OR_RAISE(auto count, query::Count(*pinned.snapshot, filter, &explain));
    lines.push_back(Concat("delete from ", pinned.location.Qualified(), " version ",
                           pinned.snapshot->version(), " where ", filter, ": ", count, " rows"));
    for (auto& line : explain.lines) lines.push_back("  " + line);
  } else if (const auto* create_index = std::get_if<CreateIndexStatement>(&body)) {
    ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, create_index->table));
    const auto& dataset = pinned.snapshot->dataset();
    lines.push_back(Concat(
        create_index->or_replace ? "replace" : "create", " index '", create_index->index_name,
        "' on ", pinned.location.Qualified(), " (", create_index->column, ") using ",
        create_index->using_type, ": one segment over ", dataset.manifest().fragments_size(),
        " fragments (", dataset.CountRows(), " rows) of version ", dataset.version(),
        ", committed as version ", dataset.version() + 1,
        create_index->if_not_exists ? "; nothing when an index of this name and definition exists"
                                    : ""));
  } else if (const auto* drop_index = std::get_if<DropIndexStatement>(&body)) {
    ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, drop_index->table));
    lines.push_back(Concat("drop index '", drop_index->index_name, "' of ",
                           pinned.location.Qualified(), " version ", pinned.snapshot->version(),
                           ": one commit removing its segments"));
  } else {
    lines.push_back("execute: " + statement.statement.text +
                    " (reads catalog metadata only; no plan)");
  }
  std::vector<std::vector<std::string>> rows;
  for (auto& line : lines) rows.push_back({std::move(line)});
  StatementResult result;
  result.rows = StringTable({"Explain"}, rows);
  return result;
}

}  // namespace tessera::sql
