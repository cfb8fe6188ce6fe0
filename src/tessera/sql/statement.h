// The statements of the SQL surface (docs/sql.md) as the parser produces them: what was
// written and where, with names unresolved. Expressions are the expression language's syntax
// trees (expr/syntax.h, parsed in its SQL dialect), so that the SQL surface and filters share one
// grammar, one binder and one evaluator.
//
// Every construct keeps the 1-based character position of its first token in the statement
// text, which errors turn into a line and a column.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tessera/expr/syntax.h"

namespace tessera::sql {

using SyntaxPtr = std::unique_ptr<expr::SyntaxNode>;

// `[catalog.][database.]name`, each part as written (quotes removed, case kept).
struct ObjectName {
  std::vector<std::string> parts;
  int position = 0;
  // The parts joined by dots, for messages.
  std::string ToString() const;
};

// `"key" = "value"` of PROPERTIES (...), keys and values as written.
struct Property {
  std::string key;
  std::string value;
  int position = 0;
};

// `name => value` or `"name" = value` of a table function call.
struct NamedArgument {
  std::string name;  // lower case
  SyntaxPtr value;
  int position = 0;
};

struct SelectStatement;

// FOR VERSION AS OF n / FOR TIMESTAMP AS OF 'text'.
struct TimeTravel {
  std::optional<uint64_t> version;
  std::optional<std::string> timestamp;
  int position = 0;
};

// One source of rows in FROM.
struct TableRef {
  enum class Kind { kTable, kFunction, kSubquery, kJoin };
  enum class JoinType { kInner, kLeft };
  Kind kind = Kind::kTable;
  int position = 0;
  std::string alias;  // empty: none
  // kTable
  ObjectName name;
  TimeTravel time_travel;
  // kFunction: name(lower case)(arguments)
  std::string function;
  std::vector<NamedArgument> arguments;
  // kSubquery
  std::unique_ptr<SelectStatement> subquery;
  // kJoin: left JOIN right ON condition
  JoinType join_type = JoinType::kInner;
  std::unique_ptr<TableRef> left;
  std::unique_ptr<TableRef> right;
  SyntaxPtr condition;
};

struct SelectItem {
  SyntaxPtr expression;  // null for * and t.*
  bool star = false;
  std::string star_qualifier;  // t of t.*
  std::string alias;           // empty: none
  std::string text;            // the expression as written (the column's name without alias)
  int position = 0;
};

struct OrderItem {
  SyntaxPtr expression;
  bool descending = false;
  std::optional<bool> nulls_first;  // absent: MySQL's rule (first ascending, last descending)
  int position = 0;
};

struct SelectStatement {
  int position = 0;
  bool distinct = false;
  std::vector<SelectItem> items;
  std::unique_ptr<TableRef> from;  // null: SELECT without FROM (one row)
  SyntaxPtr where;
  std::vector<SyntaxPtr> group_by;
  SyntaxPtr having;
  std::vector<OrderItem> order_by;
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
};

struct CreateIndexStatement {
  bool or_replace = false;
  bool if_not_exists = false;
  std::string index_name;
  ObjectName table;
  std::string column;
  std::string using_type;  // as written: ANN, BTREE, ...
  int using_position = 0;
  std::vector<Property> properties;
};

struct DropIndexStatement {
  bool if_exists = false;
  std::string index_name;
  ObjectName table;
};

struct ShowIndexStatement {
  ObjectName table;
  std::optional<std::string> database;  // SHOW INDEX FROM tbl FROM db
};

struct ShowDatabasesStatement {};

struct ShowTablesStatement {
  std::optional<std::string> database;
  bool full = false;  // SHOW FULL TABLES: with MySQL's Table_type column
};

struct ShowVersionsStatement {
  ObjectName table;
};

struct DescribeStatement {
  ObjectName table;
};

struct UseStatement {
  std::string database;
};

struct CreateDatabaseStatement {
  bool if_not_exists = false;
  std::string database;
};

struct DropDatabaseStatement {
  bool if_exists = false;
  std::string database;
};

// CREATE TABLE [IF NOT EXISTS] t AS SELECT ...
struct CreateTableAsStatement {
  bool if_not_exists = false;
  ObjectName table;
  std::unique_ptr<SelectStatement> query;
};

// DROP TABLE [IF EXISTS] t
struct DropTableStatement {
  bool if_exists = false;
  ObjectName table;
};

// INSERT INTO t SELECT ...
struct InsertStatement {
  ObjectName table;
  std::unique_ptr<SelectStatement> query;
};

// DELETE FROM t [WHERE ...]
struct DeleteStatement {
  ObjectName table;
  SyntaxPtr where;
};

struct ExplainStatement;

using StatementBody =
    std::variant<SelectStatement, CreateIndexStatement, DropIndexStatement, ShowIndexStatement,
                 ShowDatabasesStatement, ShowTablesStatement, ShowVersionsStatement,
                 DescribeStatement, UseStatement, CreateDatabaseStatement, DropDatabaseStatement,
                 CreateTableAsStatement, DropTableStatement, InsertStatement, DeleteStatement,
                 std::unique_ptr<ExplainStatement>>;

struct Statement {
  StatementBody body;
  int position = 0;  // of the first token
  // The statement's text (without the ending ';'), for messages and EXPLAIN.
  std::string text;
};

// EXPLAIN <statement>: the plan, without executing (or writing) anything.
struct ExplainStatement {
  Statement statement;
};

}  // namespace tessera::sql
