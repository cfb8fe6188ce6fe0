#include "tessera/sql/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/lexer.h"
#include "tessera/expr/parser.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/names.h"

namespace tessera::sql {

std::string ObjectName::ToString() const {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += '.';
    text += parts[i];
  }
  return text;
}

namespace {

using expr::IsKeyword;
using expr::Token;
using expr::TokenKind;

// Character position → byte offset, for cutting statement texts out of the script; positions
// only grow, so one forward walk serves every statement.
class ByteOffsets {
 public:
  explicit ByteOffsets(std::string_view text) : text_(text) {}
  size_t Of(int position) {
    if (position < character_) {
      byte_ = 0;
      character_ = 1;
    }
    while (character_ < position && byte_ < text_.size()) {
      ++byte_;
      while (byte_ < text_.size() && (static_cast<unsigned char>(text_[byte_]) & 0xC0) == 0x80) {
        ++byte_;
      }
      ++character_;
    }
    return byte_;
  }

 private:
  std::string_view text_;
  size_t byte_ = 0;
  int character_ = 1;
};

class StatementParser {
 public:
  StatementParser(std::string_view text, const std::vector<Token>& tokens)
      : text_(text), tokens_(tokens) {}

  arrow::Result<std::vector<Statement>> Run() {
    std::vector<Statement> statements;
    ByteOffsets offsets(text_);
    while (true) {
      while (Peek().kind == TokenKind::kSemicolon) Take();
      if (Peek().kind == TokenKind::kEnd) return statements;
      const int start = Peek().position;
      ARROW_ASSIGN_OR_RAISE(auto statement, ParseStatement());
      if (Peek().kind != TokenKind::kSemicolon && Peek().kind != TokenKind::kEnd) {
        return Expected("';' or the end of the statement");
      }
      const size_t begin = offsets.Of(start);
      const size_t end = offsets.Of(Peek().position);
      statement.text = std::string(text_.substr(begin, end - begin));
      while (!statement.text.empty() &&
             std::isspace(static_cast<unsigned char>(statement.text.back()))) {
        statement.text.pop_back();
      }
      statements.push_back(std::move(statement));
    }
  }

 private:
  // --- tokens ---
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(at_ + ahead, tokens_.size() - 1)];
  }
  const Token& Take() {
    const Token& token = tokens_[at_];
    if (at_ + 1 < tokens_.size()) ++at_;
    return token;
  }
  bool PeekKeyword(std::string_view keyword, size_t ahead = 0) const {
    return IsKeyword(Peek(ahead), keyword);
  }
  bool TakeKeyword(std::string_view keyword) {
    if (!PeekKeyword(keyword)) return false;
    Take();
    return true;
  }
  arrow::Status ExpectKeyword(std::string_view keyword) {
    if (TakeKeyword(keyword)) return arrow::Status::OK();
    return Expected(keyword);
  }
  arrow::Status Expect(TokenKind kind, std::string_view what) {
    if (Peek().kind != kind) return Expected(what);
    Take();
    return arrow::Status::OK();
  }

  arrow::Status ErrorAt(int position, std::string_view message) const {
    return WithCode(expr::FilterError(ErrorKind::kInvalidArgument, Source(), position, message),
                    SqlCode::kParseError);
  }
  arrow::Status Expected(std::string_view what) const {
    return ErrorAt(Peek().position, Concat("syntax error: expected ", what, ", found ",
                                           expr::DescribeToken(Peek())));
  }
  expr::SourceText Source() const {
    return expr::SourceText(text_, expr::SourceText::Style::kStatement);
  }

  // A name: a plain identifier that is not a reserved word, or a quoted one.
  bool PeekName(size_t ahead = 0) const {
    const Token& token = Peek(ahead);
    return token.kind == TokenKind::kQuotedIdentifier ||
           (token.kind == TokenKind::kIdentifier && !expr::IsSqlReserved(token));
  }
  arrow::Result<std::string> ParseName(std::string_view what) {
    if (!PeekName()) return Expected(what);
    return Take().text;
  }
  // [catalog.][database.]name
  arrow::Result<ObjectName> ParseObjectName(std::string_view what) {
    ObjectName name;
    name.position = Peek().position;
    ARROW_ASSIGN_OR_RAISE(auto first, ParseName(what));
    name.parts.push_back(std::move(first));
    while (Peek().kind == TokenKind::kDot) {
      Take();
      if (name.parts.size() == 3) {
        return ErrorAt(Peek().position,
                       "syntax error: a table name has at most three parts: catalog.db.table");
      }
      ARROW_ASSIGN_OR_RAISE(auto part, ParseName("a name after '.'"));
      name.parts.push_back(std::move(part));
    }
    return name;
  }
  // A string literal (single or double quotes).
  arrow::Result<std::string> ParseString(std::string_view what) {
    if (Peek().kind != TokenKind::kString) return Expected(what);
    return Take().text;
  }
  arrow::Result<uint64_t> ParseUnsigned(std::string_view what) {
    if (Peek().kind != TokenKind::kInteger) return Expected(what);
    const Token& token = Take();
    uint64_t value = 0;
    const auto [end, error] =
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), value);
    if (error != std::errc() || end != token.text.data() + token.text.size()) {
      return ErrorAt(token.position, Concat("number ", token.text, " is out of range"));
    }
    return value;
  }
  arrow::Result<SyntaxPtr> ParseExpression() {
    auto parsed = expr::ParseSqlExpression(text_, tokens_, &at_);
    // `x IN (SELECT ...)`, `(SELECT max(x) ...)`: a subquery where a value is expected.
    if (!parsed.ok() && at_ > 0 && at_ < tokens_.size() && IsKeyword(tokens_[at_], "SELECT") &&
        tokens_[at_ - 1].kind == TokenKind::kLeftParen) {
      return WithCode(
          expr::FilterError(ErrorKind::kUnsupported, Source(), tokens_[at_].position,
                            "subqueries in expressions are not supported yet; join the subquery "
                            "in FROM instead (FROM t JOIN (SELECT ...) AS s ON ...)"),
          SqlCode::kNotSupportedYet);
    }
    return parsed;
  }
  // IF NOT EXISTS / IF EXISTS
  arrow::Result<bool> ParseIf(bool not_exists) {
    if (!TakeKeyword("IF")) return false;
    if (not_exists) RETURN_NOT_OK(ExpectKeyword("NOT"));
    RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    return true;
  }

  // --- statements ---
  arrow::Result<Statement> ParseStatement() {
    Statement statement;
    statement.position = Peek().position;
    if (PeekKeyword("SELECT")) {
      ARROW_ASSIGN_OR_RAISE(auto select, ParseSelect());
      statement.body = std::move(*select);
    } else if (TakeKeyword("EXPLAIN")) {
      if (PeekKeyword("EXPLAIN")) return Expected("a statement to explain");
      auto explain = std::make_unique<ExplainStatement>();
      ARROW_ASSIGN_OR_RAISE(explain->statement, ParseStatement());
      statement.body = std::move(explain);
    } else if (TakeKeyword("CREATE")) {
      ARROW_ASSIGN_OR_RAISE(statement.body, ParseCreate());
    } else if (TakeKeyword("DROP")) {
      ARROW_ASSIGN_OR_RAISE(statement.body, ParseDrop());
    } else if (TakeKeyword("SHOW")) {
      ARROW_ASSIGN_OR_RAISE(statement.body, ParseShow());
    } else if (PeekKeyword("DESCRIBE") || PeekKeyword("DESC")) {
      Take();
      DescribeStatement describe;
      ARROW_ASSIGN_OR_RAISE(describe.table, ParseObjectName("a table name"));
      statement.body = std::move(describe);
    } else if (TakeKeyword("USE")) {
      UseStatement use;
      ARROW_ASSIGN_OR_RAISE(use.database, ParseName("a database name"));
      statement.body = std::move(use);
    } else if (TakeKeyword("INSERT")) {
      RETURN_NOT_OK(ExpectKeyword("INTO"));
      InsertStatement insert;
      ARROW_ASSIGN_OR_RAISE(insert.table, ParseObjectName("a table name"));
      if (!PeekKeyword("SELECT")) return Expected("SELECT (INSERT INTO t SELECT ...)");
      ARROW_ASSIGN_OR_RAISE(insert.query, ParseSelect());
      statement.body = std::move(insert);
    } else if (TakeKeyword("DELETE")) {
      RETURN_NOT_OK(ExpectKeyword("FROM"));
      DeleteStatement remove;
      ARROW_ASSIGN_OR_RAISE(remove.table, ParseObjectName("a table name"));
      if (TakeKeyword("WHERE")) {
        ARROW_ASSIGN_OR_RAISE(remove.where, ParseExpression());
      }
      statement.body = std::move(remove);
    } else {
      return Expected(
          "a statement (SELECT, CREATE, DROP, SHOW, DESCRIBE, USE, INSERT, DELETE, EXPLAIN)");
    }
    return statement;
  }

  arrow::Result<StatementBody> ParseCreate() {
    bool or_replace = false;
    if (TakeKeyword("OR")) {
      RETURN_NOT_OK(ExpectKeyword("REPLACE"));
      or_replace = true;
    }
    if (TakeKeyword("INDEX")) return ParseCreateIndex(or_replace);
    if (or_replace) return Expected("INDEX after CREATE OR REPLACE");
    if (TakeKeyword("DATABASE") || TakeKeyword("SCHEMA")) {
      CreateDatabaseStatement create;
      ARROW_ASSIGN_OR_RAISE(create.if_not_exists, ParseIf(true));
      ARROW_ASSIGN_OR_RAISE(create.database, ParseName("a database name"));
      return create;
    }
    if (TakeKeyword("TABLE")) {
      CreateTableAsStatement create;
      ARROW_ASSIGN_OR_RAISE(create.if_not_exists, ParseIf(true));
      ARROW_ASSIGN_OR_RAISE(create.table, ParseObjectName("a table name"));
      if (!TakeKeyword("AS")) {
        return Expected(
            "AS SELECT ... (tables are created from a query: CREATE TABLE t AS SELECT "
            "* FROM read_parquet('file.parquet'))");
      }
      if (!PeekKeyword("SELECT")) return Expected("SELECT after AS");
      ARROW_ASSIGN_OR_RAISE(create.query, ParseSelect());
      return create;
    }
    return Expected("INDEX, DATABASE or TABLE after CREATE");
  }

  // CREATE [OR REPLACE] INDEX [IF NOT EXISTS] idx ON tbl (col) USING type [PROPERTIES (...)]
  arrow::Result<StatementBody> ParseCreateIndex(bool or_replace) {
    CreateIndexStatement create;
    create.or_replace = or_replace;
    ARROW_ASSIGN_OR_RAISE(create.if_not_exists, ParseIf(true));
    ARROW_ASSIGN_OR_RAISE(create.index_name, ParseName("an index name"));
    RETURN_NOT_OK(ExpectKeyword("ON"));
    ARROW_ASSIGN_OR_RAISE(create.table, ParseObjectName("a table name"));
    RETURN_NOT_OK(Expect(TokenKind::kLeftParen, "'(' and the indexed column"));
    ARROW_ASSIGN_OR_RAISE(create.column, ParseName("the indexed column"));
    if (Peek().kind == TokenKind::kComma) {
      return ErrorAt(Peek().position,
                     "composite indexes are not supported: an index covers one column");
    }
    RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' after the indexed column"));
    RETURN_NOT_OK(ExpectKeyword("USING"));
    if (Peek().kind != TokenKind::kIdentifier) return Expected("an index type after USING");
    create.using_position = Peek().position;
    create.using_type = Take().text;
    if (TakeKeyword("PROPERTIES")) {
      RETURN_NOT_OK(Expect(TokenKind::kLeftParen, "'(' after PROPERTIES"));
      while (true) {
        Property property;
        property.position = Peek().position;
        ARROW_ASSIGN_OR_RAISE(property.key, ParseString("a property name in quotes: \"key\""));
        RETURN_NOT_OK(Expect(TokenKind::kEqual, "'=' after the property name"));
        ARROW_ASSIGN_OR_RAISE(property.value, ParseString("a property value in quotes"));
        create.properties.push_back(std::move(property));
        if (Peek().kind == TokenKind::kComma) {
          Take();
          continue;
        }
        RETURN_NOT_OK(Expect(TokenKind::kRightParen, "',' or ')' in PROPERTIES"));
        break;
      }
    }
    return create;
  }

  arrow::Result<StatementBody> ParseDrop() {
    if (TakeKeyword("INDEX")) {
      DropIndexStatement drop;
      ARROW_ASSIGN_OR_RAISE(drop.if_exists, ParseIf(false));
      ARROW_ASSIGN_OR_RAISE(drop.index_name, ParseName("an index name"));
      RETURN_NOT_OK(ExpectKeyword("ON"));
      ARROW_ASSIGN_OR_RAISE(drop.table, ParseObjectName("a table name"));
      return drop;
    }
    if (TakeKeyword("TABLE")) {
      DropTableStatement drop;
      ARROW_ASSIGN_OR_RAISE(drop.if_exists, ParseIf(false));
      ARROW_ASSIGN_OR_RAISE(drop.table, ParseObjectName("a table name"));
      return drop;
    }
    if (TakeKeyword("DATABASE") || TakeKeyword("SCHEMA")) {
      DropDatabaseStatement drop;
      ARROW_ASSIGN_OR_RAISE(drop.if_exists, ParseIf(false));
      ARROW_ASSIGN_OR_RAISE(drop.database, ParseName("a database name"));
      return drop;
    }
    return Expected("INDEX, TABLE or DATABASE after DROP");
  }

  bool TakeFromOrIn() { return TakeKeyword("FROM") || TakeKeyword("IN"); }

  arrow::Result<StatementBody> ParseShow() {
    if (TakeKeyword("INDEX") || TakeKeyword("INDEXES") || TakeKeyword("KEYS")) {
      ShowIndexStatement show;
      if (!TakeFromOrIn()) return Expected("FROM and a table name");
      ARROW_ASSIGN_OR_RAISE(show.table, ParseObjectName("a table name"));
      if (TakeFromOrIn()) {
        ARROW_ASSIGN_OR_RAISE(auto database, ParseName("a database name"));
        show.database = std::move(database);
      }
      return show;
    }
    if (TakeKeyword("DATABASES") || TakeKeyword("SCHEMAS")) return ShowDatabasesStatement{};
    const bool full = TakeKeyword("FULL");
    if (full && !TakeKeyword("TABLES")) return Expected("TABLES after SHOW FULL");
    if (full || TakeKeyword("TABLES")) {
      ShowTablesStatement show;
      show.full = full;
      if (TakeFromOrIn()) {
        ARROW_ASSIGN_OR_RAISE(auto database, ParseName("a database name"));
        show.database = std::move(database);
      }
      return show;
    }
    if (TakeKeyword("VERSIONS")) {
      ShowVersionsStatement show;
      if (!TakeFromOrIn()) return Expected("FROM and a table name");
      ARROW_ASSIGN_OR_RAISE(show.table, ParseObjectName("a table name"));
      return show;
    }
    if (TakeKeyword("COLUMNS") || TakeKeyword("FIELDS")) {
      DescribeStatement describe;
      if (!TakeFromOrIn()) return Expected("FROM and a table name");
      ARROW_ASSIGN_OR_RAISE(describe.table, ParseObjectName("a table name"));
      return describe;
    }
    return Expected("INDEX, DATABASES, [FULL] TABLES, COLUMNS or VERSIONS after SHOW");
  }

  // --- SELECT ---
  arrow::Status EnterQuery() {
    if (++depth_ > kMaxQueryDepth) {
      return SqlError(SqlCode::kTooComplex, ErrorKind::kInvalidArgument,
                      expr::ErrorPrefix(Source(), Peek().position),
                      "the query nests subqueries and joins more than ", kMaxQueryDepth,
                      " levels deep");
    }
    return arrow::Status::OK();
  }

  arrow::Result<std::unique_ptr<SelectStatement>> ParseSelect() {
    RETURN_NOT_OK(EnterQuery());
    auto select = std::make_unique<SelectStatement>();
    select->position = Peek().position;
    RETURN_NOT_OK(ExpectKeyword("SELECT"));
    if (TakeKeyword("DISTINCT")) {
      select->distinct = true;
    } else {
      TakeKeyword("ALL");
    }
    while (true) {
      ARROW_ASSIGN_OR_RAISE(auto item, ParseSelectItem());
      select->items.push_back(std::move(item));
      if (Peek().kind != TokenKind::kComma) break;
      Take();
    }
    if (TakeKeyword("FROM")) {
      ARROW_ASSIGN_OR_RAISE(select->from, ParseFrom());
    }
    if (TakeKeyword("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(select->where, ParseExpression());
    }
    if (TakeKeyword("GROUP")) {
      RETURN_NOT_OK(ExpectKeyword("BY"));
      while (true) {
        ARROW_ASSIGN_OR_RAISE(auto key, ParseExpression());
        select->group_by.push_back(std::move(key));
        if (Peek().kind != TokenKind::kComma) break;
        Take();
      }
    }
    if (TakeKeyword("HAVING")) {
      ARROW_ASSIGN_OR_RAISE(select->having, ParseExpression());
    }
    if (TakeKeyword("ORDER")) {
      RETURN_NOT_OK(ExpectKeyword("BY"));
      while (true) {
        OrderItem item;
        item.position = Peek().position;
        ARROW_ASSIGN_OR_RAISE(item.expression, ParseExpression());
        if (TakeKeyword("DESC")) {
          item.descending = true;
        } else {
          TakeKeyword("ASC");
        }
        if (TakeKeyword("NULLS")) {
          if (TakeKeyword("FIRST")) {
            item.nulls_first = true;
          } else if (TakeKeyword("LAST")) {
            item.nulls_first = false;
          } else {
            return Expected("FIRST or LAST after NULLS");
          }
        }
        select->order_by.push_back(std::move(item));
        if (Peek().kind != TokenKind::kComma) break;
        Take();
      }
    }
    if (TakeKeyword("LIMIT")) {
      ARROW_ASSIGN_OR_RAISE(auto first, ParseUnsigned("a row count after LIMIT"));
      if (Peek().kind == TokenKind::kComma) {  // MySQL's LIMIT offset, count
        Take();
        select->offset = first;
        ARROW_ASSIGN_OR_RAISE(select->limit, ParseUnsigned("a row count after LIMIT offset,"));
      } else {
        select->limit = first;
        if (TakeKeyword("OFFSET")) {
          ARROW_ASSIGN_OR_RAISE(select->offset, ParseUnsigned("a row count after OFFSET"));
        }
      }
    } else if (TakeKeyword("OFFSET")) {
      ARROW_ASSIGN_OR_RAISE(select->offset, ParseUnsigned("a row count after OFFSET"));
    }
    --depth_;
    return select;
  }

  arrow::Result<SelectItem> ParseSelectItem() {
    SelectItem item;
    item.position = Peek().position;
    if (Peek().kind == TokenKind::kStar) {
      Take();
      item.star = true;
      return item;
    }
    if (PeekName() && Peek(1).kind == TokenKind::kDot && Peek(2).kind == TokenKind::kStar) {
      item.star = true;
      item.star_qualifier = Take().text;
      Take();
      Take();
      return item;
    }
    ARROW_ASSIGN_OR_RAISE(item.expression, ParseExpression());
    item.text = Slice(item.position, Peek().position);
    ARROW_ASSIGN_OR_RAISE(item.alias, ParseAlias());
    return item;
  }

  // [AS] alias; empty when there is none.
  arrow::Result<std::string> ParseAlias() {
    if (TakeKeyword("AS")) {
      if (Peek().kind == TokenKind::kString) return Take().text;
      return ParseName("an alias after AS");
    }
    if (PeekName()) return Take().text;
    return std::string();
  }

  arrow::Result<std::unique_ptr<TableRef>> ParseFrom() {
    // Each join nests the tree one level deeper (the planner recurses into it) until the FROM
    // ends: the depth is restored there, however many joins it had.
    const int depth_at_from = depth_;
    ARROW_ASSIGN_OR_RAISE(auto left, ParseTablePrimary());
    while (true) {
      TableRef::JoinType type;
      const int position = Peek().position;
      if (TakeKeyword("JOIN")) {
        type = TableRef::JoinType::kInner;
      } else if (TakeKeyword("INNER")) {
        RETURN_NOT_OK(ExpectKeyword("JOIN"));
        type = TableRef::JoinType::kInner;
      } else if (TakeKeyword("LEFT")) {
        TakeKeyword("OUTER");
        RETURN_NOT_OK(ExpectKeyword("JOIN"));
        type = TableRef::JoinType::kLeft;
      } else if (PeekKeyword("RIGHT") || PeekKeyword("FULL") || PeekKeyword("CROSS")) {
        return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported,
                        expr::ErrorPrefix(Source(), position), Peek().text,
                        " joins are not supported; write INNER or LEFT JOIN ... ON");
      } else if (Peek().kind == TokenKind::kComma) {
        return SqlError(SqlCode::kNotSupportedYet, ErrorKind::kUnsupported,
                        expr::ErrorPrefix(Source(), position),
                        "comma joins are not supported; write JOIN ... ON");
      } else {
        depth_ = depth_at_from;
        return left;
      }
      RETURN_NOT_OK(EnterQuery());
      auto join = std::make_unique<TableRef>();
      join->kind = TableRef::Kind::kJoin;
      join->position = position;
      join->join_type = type;
      join->left = std::move(left);
      ARROW_ASSIGN_OR_RAISE(join->right, ParseTablePrimary());
      if (!TakeKeyword("ON")) return Expected("ON and the join condition");
      ARROW_ASSIGN_OR_RAISE(join->condition, ParseExpression());
      left = std::move(join);
    }
  }

  arrow::Result<std::unique_ptr<TableRef>> ParseTablePrimary() {
    auto ref = std::make_unique<TableRef>();
    ref->position = Peek().position;
    if (Peek().kind == TokenKind::kLeftParen) {
      Take();
      if (!PeekKeyword("SELECT")) return Expected("SELECT in a subquery");
      ref->kind = TableRef::Kind::kSubquery;
      ARROW_ASSIGN_OR_RAISE(ref->subquery, ParseSelect());
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' to close the subquery"));
      ARROW_ASSIGN_OR_RAISE(ref->alias, ParseAlias());
      return ref;
    }
    if (Peek().kind == TokenKind::kIdentifier && Peek(1).kind == TokenKind::kLeftParen) {
      ref->kind = TableRef::Kind::kFunction;
      ref->function = AsciiLower(Take().text);
      Take();  // '('
      if (Peek().kind != TokenKind::kRightParen) {
        while (true) {
          ARROW_ASSIGN_OR_RAISE(auto argument, ParseNamedArgument());
          ref->arguments.push_back(std::move(argument));
          if (Peek().kind != TokenKind::kComma) break;
          Take();
        }
      }
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "',' or ')' in the argument list"));
      ARROW_ASSIGN_OR_RAISE(ref->alias, ParseAlias());
      return ref;
    }
    ARROW_ASSIGN_OR_RAISE(ref->name, ParseObjectName("a table name"));
    if (PeekKeyword("FOR")) {
      ref->time_travel.position = Take().position;
      const bool by_version = TakeKeyword("VERSION");
      if (!by_version && !TakeKeyword("TIMESTAMP")) return Expected("VERSION or TIMESTAMP");
      RETURN_NOT_OK(ExpectKeyword("AS"));
      RETURN_NOT_OK(ExpectKeyword("OF"));
      if (by_version) {
        ARROW_ASSIGN_OR_RAISE(ref->time_travel.version, ParseUnsigned("a version number"));
      } else {
        ARROW_ASSIGN_OR_RAISE(ref->time_travel.timestamp,
                              ParseString("a timestamp such as '2026-01-01 00:00:00'"));
      }
    }
    ARROW_ASSIGN_OR_RAISE(ref->alias, ParseAlias());
    return ref;
  }

  // name => value, "name" = value, or a bare value (positional, named by its place).
  arrow::Result<NamedArgument> ParseNamedArgument() {
    NamedArgument argument;
    argument.position = Peek().position;
    const bool named =
        (Peek().kind == TokenKind::kIdentifier || Peek().kind == TokenKind::kString ||
         Peek().kind == TokenKind::kQuotedIdentifier) &&
        (Peek(1).kind == TokenKind::kArrow || Peek(1).kind == TokenKind::kEqual);
    if (named) {
      argument.name = AsciiLower(Take().text);
      Take();  // => or =
    }
    if (Peek().kind == TokenKind::kLeftBracket) {
      auto array = std::make_unique<expr::SyntaxNode>();
      array->kind = expr::SyntaxNode::Kind::kArray;
      array->position = Take().position;
      if (Peek().kind != TokenKind::kRightBracket) {
        while (true) {
          ARROW_ASSIGN_OR_RAISE(auto item, ParseExpression());
          array->children.push_back(std::move(item));
          if (Peek().kind != TokenKind::kComma) break;
          Take();
        }
      }
      RETURN_NOT_OK(Expect(TokenKind::kRightBracket, "',' or ']' in the array"));
      argument.value = std::move(array);
    } else {
      ARROW_ASSIGN_OR_RAISE(argument.value, ParseExpression());
    }
    return argument;
  }

  // The text from character `begin` to before character `end`, trailing blanks removed.
  std::string Slice(int begin, int end) {
    const size_t from = item_offsets_.Of(begin);
    std::string text(text_.substr(from, item_offsets_.Of(end) - from));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
  }

  std::string_view text_;
  const std::vector<Token>& tokens_;
  size_t at_ = 0;
  int depth_ = 0;
  ByteOffsets item_offsets_{text_};
};

}  // namespace

arrow::Result<std::vector<Statement>> ParseScript(std::string_view text) {
  if (text.size() > kMaxStatementBytes) {
    return SqlError(SqlCode::kTooComplex, ErrorKind::kInvalidArgument, "the input is ", text.size(),
                    " bytes long, more than the limit of ", kMaxStatementBytes,
                    " bytes; split it into several statements or load data from files "
                    "(read_parquet, read_arrow)");
  }
  auto tokens = expr::Lex(text, expr::LexOptions{.sql = true});
  if (!tokens.ok()) return WithCode(tokens.status(), SqlCode::kParseError);
  auto statements = StatementParser(text, *tokens).Run();
  if (!statements.ok()) return WithCode(statements.status(), SqlCode::kParseError);
  return statements;
}

}  // namespace tessera::sql
