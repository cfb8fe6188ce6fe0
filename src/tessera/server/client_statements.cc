#include "tessera/server/client_statements.h"

#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <variant>
#include <vector>

#include "tessera/expr/filter.h"
#include "tessera/server/protocol.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/names.h"

namespace tessera::server {

namespace {

using Value = std::variant<int64_t, std::string>;

// The session variables clients ask for, with the only values they have here.
std::map<std::string, Value> Variables(const ClientContext& context) {
  const std::string charset = "utf8mb4";
  const std::string collation = "utf8mb4_0900_ai_ci";
  return {
      {"auto_increment_increment", int64_t{1}},
      {"autocommit", int64_t{1}},
      {"character_set_client", charset},
      {"character_set_connection", charset},
      {"character_set_database", charset},
      {"character_set_results", charset},
      {"character_set_server", charset},
      {"character_set_system", std::string("utf8mb3")},
      {"collation_connection", collation},
      {"collation_database", collation},
      {"collation_server", collation},
      {"have_query_cache", std::string("NO")},
      {"init_connect", std::string()},
      {"interactive_timeout", int64_t{context.idle_timeout_seconds}},
      {"license", std::string("unspecified")},
      {"lower_case_table_names", int64_t{2}},  // names compare without case, keep their case
      {"max_allowed_packet", static_cast<int64_t>(context.max_allowed_packet)},
      {"net_buffer_length", int64_t{16384}},
      {"net_write_timeout", int64_t{60}},
      {"performance_schema", int64_t{0}},
      {"query_cache_size", int64_t{0}},
      {"query_cache_type", std::string("OFF")},
      {"sql_mode", std::string("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES")},
      {"system_time_zone", std::string("UTC")},
      {"time_zone", std::string("+00:00")},
      {"transaction_isolation", std::string("REPEATABLE-READ")},
      {"transaction_read_only", int64_t{0}},
      {"tx_isolation", std::string("REPEATABLE-READ")},
      {"tx_read_only", int64_t{0}},
      {"version", std::string(kServerVersion)},
      {"version_comment", std::string("tessera")},
      {"version_compile_os", std::string("Linux")},
      {"wait_timeout", int64_t{context.idle_timeout_seconds}},
  };
}

// Where the comment starting at text[at] ends (one past it), or `at` when none starts there.
size_t CommentEnd(std::string_view text, size_t at) {
  if (text.compare(at, 2, "--") == 0) {
    const size_t newline = text.find('\n', at);
    return newline == std::string_view::npos ? text.size() : newline + 1;
  }
  if (text.compare(at, 2, "/*") == 0) {
    const size_t close = text.find("*/", at + 2);
    return close == std::string_view::npos ? text.size() : close + 2;
  }
  return at;
}

std::string Trimmed(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (true) {  // blanks and comments before the statement
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    const size_t after = CommentEnd(text, begin);
    if (after == begin) break;
    begin = std::min(after, end);
  }
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin &&
         (std::isspace(static_cast<unsigned char>(text[end - 1])) || text[end - 1] == ';')) {
    --end;
  }
  return std::string(text.substr(begin, end - begin));
}

// Splits at top-level commas (not inside quotes or parentheses).
std::vector<std::string> SplitItems(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      items.push_back(Trimmed(current));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  items.push_back(Trimmed(current));
  return items;
}

bool StartsWithWord(const std::string& lower, std::string_view word) {
  return lower.compare(0, word.size(), word) == 0 &&
         (lower.size() == word.size() ||
          !std::isalnum(static_cast<unsigned char>(lower[word.size()])));
}

// A one-row table of `values` (nullopt: a NULL string).
arrow::Result<std::shared_ptr<arrow::Table>> OneRow(
    const std::vector<std::string>& names, const std::vector<std::optional<Value>>& values) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t i = 0; i < names.size(); ++i) {
    std::shared_ptr<arrow::Scalar> scalar;
    if (!values[i]) {
      scalar = arrow::MakeNullScalar(arrow::utf8());
    } else if (std::holds_alternative<int64_t>(*values[i])) {
      scalar = arrow::MakeScalar(std::get<int64_t>(*values[i]));
    } else {
      scalar = arrow::MakeScalar(std::get<std::string>(*values[i]));
    }
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
    fields.push_back(arrow::field(names[i], scalar->type));
    arrays.push_back(std::move(array));
  }
  return arrow::Table::Make(arrow::schema(fields), arrays, 1);
}

// `item` of a SELECT list: its value, nullopt-in-optional for NULL; an outer nullopt when the
// item is none the server answers.
std::optional<arrow::Result<std::optional<Value>>> ItemValue(const std::string& item,
                                                             const ClientContext& context) {
  const std::string lower = sql::AsciiLower(item);
  if (lower.rfind("@@", 0) == 0) {
    std::string name = lower.substr(2);
    for (const char* scope : {"session.", "global.", "local."}) {
      if (name.rfind(scope, 0) == 0) name = name.substr(std::string(scope).size());
    }
    const auto variables = Variables(context);
    auto it = variables.find(name);
    if (it == variables.end()) {
      return arrow::Result<std::optional<Value>>(
          sql::SqlError(sql::SqlCode::kUnknownSystemVariable, ErrorKind::kNotFound,
                        "Unknown system variable '", name, "'"));
    }
    return arrow::Result<std::optional<Value>>(std::optional<Value>(it->second));
  }
  std::string compact;
  for (char c : lower) {
    if (!std::isspace(static_cast<unsigned char>(c))) compact.push_back(c);
  }
  using Answer = arrow::Result<std::optional<Value>>;
  if (compact == "database()" || compact == "schema()") {
    if (context.database.empty()) return Answer(std::optional<Value>());
    return Answer(std::optional<Value>(context.database));
  }
  if (compact == "version()") return Answer(std::optional<Value>(std::string(kServerVersion)));
  if (compact == "connection_id()") {
    return Answer(std::optional<Value>(int64_t{context.connection_id}));
  }
  if (compact == "user()" || compact == "current_user()" || compact == "current_user") {
    return Answer(std::optional<Value>(context.user));
  }
  if (compact == "1") return Answer(std::optional<Value>(int64_t{1}));
  return std::nullopt;
}

// "expr AS alias" / "expr alias" → (expr, alias); no alias: the expression as written.
std::pair<std::string, std::string> SplitAlias(const std::string& item) {
  const std::string lower = sql::AsciiLower(item);
  const size_t as = lower.rfind(" as ");
  if (as != std::string::npos) {
    std::string alias = Trimmed(item.substr(as + 4));
    if (alias.size() >= 2 &&
        (alias.front() == '`' || alias.front() == '\'' || alias.front() == '"') &&
        alias.back() == alias.front()) {
      alias = alias.substr(1, alias.size() - 2);
    }
    return {Trimmed(item.substr(0, as)), alias};
  }
  return {item, item};
}

std::optional<arrow::Result<sql::StatementResult>> AnswerSelect(const std::string& text,
                                                                const ClientContext& context) {
  std::string list = Trimmed(text.substr(6));
  const std::string lower = sql::AsciiLower(list);
  // A trailing LIMIT n changes nothing of one row (LIMIT 0 aside).
  bool empty = false;
  const size_t limit = lower.rfind(" limit ");
  if (limit != std::string::npos) {
    const std::string count = Trimmed(lower.substr(limit + 7));
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    empty = count.find_first_not_of('0') == std::string::npos;
    list = Trimmed(list.substr(0, limit));
  }
  if (sql::AsciiLower(list).find(" from ") != std::string::npos) return std::nullopt;
  std::vector<std::string> names;
  std::vector<std::optional<Value>> values;
  for (const auto& item : SplitItems(list)) {
    auto [expression, alias] = SplitAlias(item);
    auto value = ItemValue(expression, context);
    if (!value) return std::nullopt;
    if (!value->ok()) return arrow::Result<sql::StatementResult>(value->status());
    names.push_back(alias);
    values.push_back(**value);
  }
  sql::StatementResult result;
  auto rows = OneRow(names, values);
  if (!rows.ok()) return arrow::Result<sql::StatementResult>(rows.status());
  result.rows = std::move(*rows);
  if (empty) result.rows = result.rows->Slice(0, 0);
  return arrow::Result<sql::StatementResult>(std::move(result));
}

// SHOW VARIABLES and SHOW STATUS: `rows` of Variable_name, Value, filtered by `rest`.
arrow::Result<sql::StatementResult> AnswerShowNameValues(
    const std::string& rest, const std::vector<std::pair<std::string, std::string>>& rows,
    std::string_view what) {
  arrow::StringBuilder names, values;
  for (const auto& [name, value] : rows) {
    RETURN_NOT_OK(names.Append(name));
    RETURN_NOT_OK(values.Append(value));
  }
  std::shared_ptr<arrow::Array> name_array, value_array;
  RETURN_NOT_OK(names.Finish(&name_array));
  RETURN_NOT_OK(values.Finish(&value_array));
  auto schema = arrow::schema(
      {arrow::field("Variable_name", arrow::utf8()), arrow::field("Value", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(schema, name_array->length(), {name_array, value_array});
  // LIKE 'pattern' (without case, as MySQL's) or WHERE condition: the filter language's.
  const std::string lower = sql::AsciiLower(rest);
  std::string condition;
  if (StartsWithWord(lower, "like")) {
    condition = "Variable_name ILIKE " + Trimmed(rest.substr(4));
  } else if (StartsWithWord(lower, "where")) {
    condition = Trimmed(rest.substr(5));
  } else if (!rest.empty()) {
    return sql::SqlError(sql::SqlCode::kParseError, ErrorKind::kInvalidArgument,
                         "syntax error: expected LIKE or WHERE after SHOW ", what, ", found '",
                         rest, "'");
  }
  if (!condition.empty()) {
    auto filter = expr::Filter::Parse(condition, schema);
    if (!filter.ok()) return sql::WithCode(filter.status(), sql::SqlCode::kParseError);
    ARROW_ASSIGN_OR_RAISE(auto keep, (*filter)->Select(*batch));
    ARROW_ASSIGN_OR_RAISE(auto kept,
                          arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(keep)));
    batch = kept.record_batch();
  }
  sql::StatementResult result;
  ARROW_ASSIGN_OR_RAISE(result.rows, arrow::Table::FromRecordBatches({batch}));
  return result;
}

}  // namespace

std::vector<size_t> UnquotedPositions(std::string_view text, char wanted) {
  std::vector<size_t> positions;
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '\'' || c == '"' || c == '`') {
      for (++at; at < text.size(); ++at) {
        if (text[at] == '\\' && c != '`') {
          ++at;  // an escaped character
        } else if (text[at] == c) {
          if (at + 1 < text.size() && text[at + 1] == c) {
            ++at;  // a doubled quote
          } else {
            break;
          }
        }
      }
      continue;
    }
    const size_t comment_end = CommentEnd(text, at);
    if (comment_end != at) {
      at = comment_end - 1;
      continue;
    }
    if (c == wanted) positions.push_back(at);
  }
  return positions;
}

std::vector<std::string> SplitStatements(std::string_view query) {
  std::vector<std::string> pieces;
  size_t start = 0;
  auto finish = [&](size_t end) {
    const std::string piece(query.substr(start, end - start));
    if (!Trimmed(piece).empty()) pieces.push_back(piece);
    start = end + 1;
  };
  for (size_t at : UnquotedPositions(query, ';')) finish(at);
  if (start < query.size()) finish(query.size());
  return pieces;
}

// SET [@@session.]tessera_test_fault = 'name': the fault hook of this connection's next
// mutations (docs/development.md); 1193 unless the server's test hooks are on.
arrow::Result<sql::StatementResult> SetTestFault(const std::string& text,
                                                 const ClientContext& context) {
  if (context.test_fault == nullptr) {
    return sql::SqlError(sql::SqlCode::kUnknownSystemVariable, ErrorKind::kNotFound,
                         "Unknown system variable 'tessera_test_fault' (it exists only in a "
                         "server a test harness started with TESSERA_TEST_FAULT_HOOKS=1)");
  }
  const size_t equals = text.find('=');
  std::string value = equals == std::string::npos ? "" : Trimmed(text.substr(equals + 1));
  if (value.size() < 2 || (value.front() != '\'' && value.front() != '"') ||
      value.back() != value.front()) {
    return sql::SqlError(sql::SqlCode::kParseError, ErrorKind::kInvalidArgument,
                         "expected SET tessera_test_fault = 'name'");
  }
  *context.test_fault = value.substr(1, value.size() - 2);
  return sql::StatementResult{};
}

std::optional<arrow::Result<sql::StatementResult>> AnswerClientStatement(
    std::string_view statement, const ClientContext& context) {
  const std::string text = Trimmed(statement);
  const std::string lower = sql::AsciiLower(text);
  using Answer = arrow::Result<sql::StatementResult>;
  if (StartsWithWord(lower, "set")) {
    if (lower.find("tessera_test_fault") != std::string::npos) return SetTestFault(text, context);
    return Answer(sql::StatementResult{});
  }
  for (const char* word : {"begin", "start transaction", "commit", "rollback"}) {
    if (lower == word || lower == std::string(word) + " work") {
      return Answer(sql::StatementResult{});
    }
  }
  if (lower == "show warnings" || lower == "show errors") {
    auto empty = arrow::Table::MakeEmpty(
        arrow::schema({arrow::field("Level", arrow::utf8()), arrow::field("Code", arrow::int64()),
                       arrow::field("Message", arrow::utf8())}));
    if (!empty.ok()) return Answer(empty.status());
    sql::StatementResult result;
    result.rows = std::move(*empty);
    return Answer(std::move(result));
  }
  for (const char* prefix : {"show variables", "show session variables", "show global variables"}) {
    if (StartsWithWord(lower, prefix)) {
      std::vector<std::pair<std::string, std::string>> rows;
      for (const auto& [name, value] : Variables(context)) {
        rows.emplace_back(name, std::holds_alternative<int64_t>(value)
                                    ? std::to_string(std::get<int64_t>(value))
                                    : std::get<std::string>(value));
      }
      return AnswerShowNameValues(Trimmed(text.substr(std::string(prefix).size())), rows,
                                  "VARIABLES");
    }
  }
  for (const char* prefix : {"show status", "show session status", "show global status"}) {
    if (StartsWithWord(lower, prefix)) {
      return AnswerShowNameValues(Trimmed(text.substr(std::string(prefix).size())), context.status,
                                  "STATUS");
    }
  }
  if (StartsWithWord(lower, "select")) return AnswerSelect(text, context);
  return std::nullopt;
}

std::string UseStatement(std::string_view database) {
  std::string quoted = "USE `";
  for (char c : database) {
    quoted.push_back(c);
    if (c == '`') quoted.push_back('`');
  }
  return quoted + "`";
}

}  // namespace tessera::server
