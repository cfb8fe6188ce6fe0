#include "tessera/expr/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/lexer.h"
#include "tessera/expr/literal.h"

namespace tessera::expr {

std::string DescribeLiteral(const LiteralValue& literal) {
  switch (literal.kind) {
    case LiteralValue::Kind::kNull:
      return "NULL";
    case LiteralValue::Kind::kBoolean:
      return literal.boolean ? "boolean literal TRUE" : "boolean literal FALSE";
    case LiteralValue::Kind::kInteger: {
      // __int128 has no operator<<; the magnitude fits in 64 bits.
      const bool negative = literal.integer < 0;
      const auto magnitude =
          static_cast<unsigned long long>(negative ? -literal.integer : literal.integer);
      return std::string("integer literal ") + (negative ? "-" : "") + std::to_string(magnitude);
    }
    case LiteralValue::Kind::kFloat: {
      if (!literal.string.empty()) return "integer literal " + literal.string;
      char buffer[64];
      auto result = std::to_chars(buffer, buffer + sizeof(buffer), literal.real);
      return "float literal " + std::string(buffer, result.ptr);
    }
    case LiteralValue::Kind::kString:
      return "string literal " + QuoteForMessage(literal.string);
    case LiteralValue::Kind::kDate:
      return "DATE literal '" + FormatDate(static_cast<int64_t>(literal.integer)) + "'";
    case LiteralValue::Kind::kTimestamp:
      return "TIMESTAMP literal '" + FormatTimestamp(literal.integer) + "'";
  }
  return "literal";
}

bool IsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != TokenKind::kIdentifier || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(token.text[i])) != keyword[i]) return false;
  }
  return true;
}

bool IsSqlReserved(const Token& token) {
  if (token.kind != TokenKind::kIdentifier) return false;
  for (std::string_view keyword :
       {"SELECT", "FROM",   "WHERE", "GROUP", "BY",     "HAVING", "ORDER",
        "LIMIT",  "OFFSET", "JOIN",  "INNER", "LEFT",   "RIGHT",  "FULL",
        "OUTER",  "CROSS",  "ON",    "AS",    "UNION",  "ASC",    "DESC",
        "FOR",    "USING",  "WITH",  "INTO",  "VALUES", "SET",    "PROPERTIES"}) {
    if (IsKeyword(token, keyword)) return true;
  }
  return false;
}

namespace {

// Words that can never be column names unless double-quoted.
bool IsFilterReserved(const Token& token) {
  for (std::string_view keyword :
       {"AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "LIKE", "TRUE", "FALSE", "CASE", "WHEN",
        "THEN", "ELSE", "END", "CAST", "TRY_CAST", "DISTINCT"}) {
    if (IsKeyword(token, keyword)) return true;
  }
  return false;
}

std::unique_ptr<SyntaxNode> MakeNode(SyntaxNode::Kind kind, int position) {
  auto node = std::make_unique<SyntaxNode>();
  node->kind = kind;
  node->position = position;
  return node;
}

class Parser {
 public:
  Parser(SourceText text, const std::vector<Token>& tokens, bool sql, size_t at = 0)
      : text_(text), tokens_(tokens), sql_(sql), at_(at) {}

  // One expression from the current token; at() is then the token after it.
  arrow::Result<std::unique_ptr<SyntaxNode>> RunExpression() { return ParseOr(); }
  size_t at() const { return at_; }

  arrow::Result<std::unique_ptr<SyntaxNode>> Run() {
    if (Peek().kind == TokenKind::kEnd) {
      return FilterError(ErrorKind::kInvalidArgument, text_, 1,
                         "syntax error: the filter is empty; write a predicate such as x > 5");
    }
    ARROW_ASSIGN_OR_RAISE(auto root, ParseOr());
    if (Peek().kind != TokenKind::kEnd) {
      if (Peek().kind == TokenKind::kRightParen) {
        return Expected("AND, OR or end of filter (this ')' has no matching '(')");
      }
      return Expected("AND, OR or end of filter");
    }
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(at_ + ahead, tokens_.size() - 1)];
  }
  const Token& Take() {
    const Token& token = tokens_[at_];
    if (at_ + 1 < tokens_.size()) ++at_;
    return token;
  }
  bool TakeKeyword(std::string_view keyword) {
    if (!IsKeyword(Peek(), keyword)) return false;
    Take();
    return true;
  }

  arrow::Status Expected(std::string_view what) const {
    return FilterError(ErrorKind::kInvalidArgument, text_, Peek().position,
                       "syntax error: expected ", what, ", found ", DescribeToken(Peek()));
  }

  arrow::Status Expect(TokenKind kind, std::string_view what) {
    if (Peek().kind != kind) return Expected(what);
    Take();
    return arrow::Status::OK();
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseOr() {
    ARROW_ASSIGN_OR_RAISE(auto first, ParseAnd());
    if (!IsKeyword(Peek(), "OR")) return first;
    auto node = MakeNode(SyntaxNode::Kind::kOr, Peek().position);
    node->children.push_back(std::move(first));
    while (TakeKeyword("OR")) {
      ARROW_ASSIGN_OR_RAISE(auto next, ParseAnd());
      node->children.push_back(std::move(next));
    }
    return node;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseAnd() {
    ARROW_ASSIGN_OR_RAISE(auto first, ParseNot());
    if (!IsKeyword(Peek(), "AND")) return first;
    auto node = MakeNode(SyntaxNode::Kind::kAnd, Peek().position);
    node->children.push_back(std::move(first));
    while (TakeKeyword("AND")) {
      ARROW_ASSIGN_OR_RAISE(auto next, ParseNot());
      node->children.push_back(std::move(next));
    }
    return node;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseNot() {
    if (IsKeyword(Peek(), "NOT")) {
      RETURN_NOT_OK(Enter());
      auto node = MakeNode(SyntaxNode::Kind::kNot, Take().position);
      ARROW_ASSIGN_OR_RAISE(auto child, ParseNot());
      node->children.push_back(std::move(child));
      --depth_;
      return node;
    }
    return ParseIs();
  }

  // Parentheses, NOTs, unary signs and function arguments recurse; the depth is bounded so that
  // hostile input cannot exhaust the stack of the parser, the binder or the evaluator.
  arrow::Status Enter() {
    if (++depth_ > kMaxFilterDepth) {
      return FilterError(ErrorKind::kInvalidArgument, text_, Peek().position,
                         "the filter nests parentheses, NOTs, signs or function calls more than ",
                         kMaxFilterDepth, " levels deep");
    }
    return arrow::Status::OK();
  }

  // operand IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM operand, applied to the
  // result of a comparison (`a = b IS NULL` tests the comparison), as in SQL.
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseIs() {
    ARROW_ASSIGN_OR_RAISE(auto operand, ParsePredicate());
    while (IsKeyword(Peek(), "IS")) {
      const int position = Take().position;
      const bool negated = TakeKeyword("NOT");
      std::unique_ptr<SyntaxNode> node;
      if (TakeKeyword("NULL")) {
        node = MakeNode(SyntaxNode::Kind::kIsNull, position);
      } else if (IsKeyword(Peek(), "TRUE") || IsKeyword(Peek(), "FALSE") ||
                 IsKeyword(Peek(), "UNKNOWN")) {
        node = MakeNode(SyntaxNode::Kind::kIsTruth, position);
        if (!IsKeyword(Peek(), "UNKNOWN")) {
          node->literal.kind = LiteralValue::Kind::kBoolean;
          node->literal.boolean = IsKeyword(Peek(), "TRUE");
        }
        Take();
      } else if (TakeKeyword("DISTINCT")) {
        if (!TakeKeyword("FROM")) return Expected("FROM after IS DISTINCT");
        node = MakeNode(SyntaxNode::Kind::kIsDistinct, position);
        node->children.push_back(std::move(operand));
        ARROW_ASSIGN_OR_RAISE(auto right, ParsePredicate());
        node->children.push_back(std::move(right));
        node->negated = negated;
        operand = std::move(node);
        continue;
      } else {
        return Expected(negated ? "NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS NOT"
                                : "NULL, NOT, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS");
      }
      node->negated = negated;
      node->children.push_back(std::move(operand));
      operand = std::move(node);
    }
    return operand;
  }

  std::optional<CompareOp> PeekCompareOp() const {
    switch (Peek().kind) {
      case TokenKind::kEqual:
        return CompareOp::kEqual;
      case TokenKind::kNotEqual:
        return CompareOp::kNotEqual;
      case TokenKind::kLess:
        return CompareOp::kLess;
      case TokenKind::kLessEqual:
        return CompareOp::kLessEqual;
      case TokenKind::kGreater:
        return CompareOp::kGreater;
      case TokenKind::kGreaterEqual:
        return CompareOp::kGreaterEqual;
      default:
        return std::nullopt;
    }
  }

  // value [op value | [NOT] IN (...) | [NOT] BETWEEN a AND b | [NOT] LIKE pattern]
  arrow::Result<std::unique_ptr<SyntaxNode>> ParsePredicate() {
    ARROW_ASSIGN_OR_RAISE(auto operand, ParseConcat());
    if (PeekCompareOp() == CompareOp::kEqual && IsKeyword(Peek(1), "ANY") &&
        Peek(2).kind == TokenKind::kLeftParen) {
      // x = ANY(list): list_contains with SQL's unknowns.
      auto node = MakeNode(SyntaxNode::Kind::kCall, Take().position);
      node->name = "= any";
      Take();  // ANY
      Take();  // (
      ARROW_ASSIGN_OR_RAISE(auto list, ParseOr());
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' to close ANY"));
      node->children.push_back(std::move(operand));
      node->children.push_back(std::move(list));
      return node;
    }
    if (IsKeyword(Peek(), "REGEXP") || (IsKeyword(Peek(), "NOT") && IsKeyword(Peek(1), "REGEXP"))) {
      const int position = Peek().position;
      const bool negated = TakeKeyword("NOT");
      Take();  // REGEXP
      auto node = MakeNode(SyntaxNode::Kind::kCall, position);
      node->name = "regexp_like";
      ARROW_ASSIGN_OR_RAISE(auto pattern, ParseConcat());
      node->children.push_back(std::move(operand));
      node->children.push_back(std::move(pattern));
      if (!negated) return node;
      auto negation = MakeNode(SyntaxNode::Kind::kNot, position);
      negation->children.push_back(std::move(node));
      return negation;
    }
    if (auto op = PeekCompareOp()) {
      auto node = MakeNode(SyntaxNode::Kind::kCompare, Take().position);
      node->op = *op;
      ARROW_ASSIGN_OR_RAISE(auto right, ParseConcat());
      node->children.push_back(std::move(operand));
      node->children.push_back(std::move(right));
      if (PeekCompareOp()) {
        return Expected(
            "AND, OR or end of filter (comparisons do not chain; write a < b AND b < c)");
      }
      return node;
    }
    const Token& token = Peek();
    const int position = token.position;
    bool negated = false;
    if (IsKeyword(token, "NOT")) {
      const Token& next = Peek(1);
      if (!IsKeyword(next, "IN") && !IsKeyword(next, "BETWEEN") && !IsKeyword(next, "LIKE") &&
          !IsKeyword(next, "ILIKE")) {
        Take();
        return Expected("IN, BETWEEN, LIKE or ILIKE after NOT");
      }
      Take();
      negated = true;
    }
    if (TakeKeyword("IN")) {
      auto node = MakeNode(SyntaxNode::Kind::kIn, position);
      node->negated = negated;
      node->children.push_back(std::move(operand));
      RETURN_NOT_OK(Expect(TokenKind::kLeftParen, "'(' to open the IN list"));
      while (true) {
        ARROW_ASSIGN_OR_RAISE(auto item, ParseConcat());
        node->children.push_back(std::move(item));
        if (Peek().kind == TokenKind::kComma) {
          Take();
          continue;
        }
        RETURN_NOT_OK(Expect(TokenKind::kRightParen, "',' or ')' in the IN list"));
        return node;
      }
    }
    if (TakeKeyword("BETWEEN")) {
      auto node = MakeNode(SyntaxNode::Kind::kBetween, position);
      node->negated = negated;
      node->children.push_back(std::move(operand));
      ARROW_ASSIGN_OR_RAISE(auto lower, ParseConcat());
      node->children.push_back(std::move(lower));
      if (!TakeKeyword("AND")) return Expected("AND between the bounds of BETWEEN");
      ARROW_ASSIGN_OR_RAISE(auto upper, ParseConcat());
      node->children.push_back(std::move(upper));
      return node;
    }
    if (IsKeyword(Peek(), "LIKE") || IsKeyword(Peek(), "ILIKE")) {
      auto node = MakeNode(SyntaxNode::Kind::kLike, position);
      node->name = IsKeyword(Take(), "ILIKE") ? "ilike" : "like";
      node->negated = negated;
      node->children.push_back(std::move(operand));
      ARROW_ASSIGN_OR_RAISE(auto pattern, ParseConcat());
      node->children.push_back(std::move(pattern));
      // ESCAPE is not reserved: after a pattern nothing else may follow as a bare word.
      if (TakeKeyword("ESCAPE")) {
        ARROW_ASSIGN_OR_RAISE(auto escape, ParseOperand());
        node->children.push_back(std::move(escape));
      }
      return node;
    }
    // A bare value is a predicate of its own (a boolean column, TRUE); the binder checks it.
    // In a statement whatever follows is the statement's (an alias, FROM, ';').
    if (sql_) return operand;
    switch (token.kind) {
      case TokenKind::kEnd:
      case TokenKind::kRightParen:
      case TokenKind::kComma:
        return operand;
      default:
        if (IsKeyword(token, "AND") || IsKeyword(token, "OR") || IsKeyword(token, "IS") ||
            IsKeyword(token, "THEN") || IsKeyword(token, "WHEN") || IsKeyword(token, "ELSE") ||
            IsKeyword(token, "END") || IsKeyword(token, "AS")) {
          return operand;
        }
        return Expected(
            "an operator (+, -, *, /, %, ||), a comparison (=, !=, <>, <, <=, >, >=, IN, "
            "BETWEEN, LIKE, ILIKE, IS), AND, OR or end of filter");
    }
  }

  // Left-associative binary operators of one precedence level.
  template <typename Next>
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseBinary(
      Next next, std::initializer_list<std::pair<TokenKind, const char*>> operators) {
    ARROW_ASSIGN_OR_RAISE(auto left, (this->*next)());
    while (true) {
      const char* name = nullptr;
      for (const auto& [kind, symbol] : operators) {
        if (Peek().kind == kind) name = symbol;
      }
      if (name == nullptr) return left;
      auto node = MakeNode(SyntaxNode::Kind::kCall, Take().position);
      node->name = name;
      ARROW_ASSIGN_OR_RAISE(auto right, (this->*next)());
      node->children.push_back(std::move(left));
      node->children.push_back(std::move(right));
      left = std::move(node);
    }
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseConcat() {
    return ParseBinary(&Parser::ParseAdditive, {{TokenKind::kConcat, "||"}});
  }
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseAdditive() {
    return ParseBinary(&Parser::ParseMultiplicative,
                       {{TokenKind::kPlus, "+"}, {TokenKind::kMinus, "-"}});
  }
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseMultiplicative() {
    return ParseBinary(
        &Parser::ParseUnary,
        {{TokenKind::kStar, "*"}, {TokenKind::kSlash, "/"}, {TokenKind::kPercent, "%"}});
  }

  // Signs. A sign directly before a number is part of the literal, so that -128 and
  // -9223372036854775808 are exact integer literals, not negations of values out of range.
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseUnary() {
    const Token& token = Peek();
    if (token.kind != TokenKind::kMinus && token.kind != TokenKind::kPlus) return ParsePostfix();
    const bool negative = token.kind == TokenKind::kMinus;
    const int position = Take().position;
    if ((Peek().kind == TokenKind::kInteger || Peek().kind == TokenKind::kFloat) &&
        Peek(1).kind != TokenKind::kDoubleColon) {
      return ParseNumber(Take(), negative, position);
    }
    RETURN_NOT_OK(Enter());
    ARROW_ASSIGN_OR_RAISE(auto operand, ParseUnary());
    --depth_;
    if (!negative) return operand;
    auto node = MakeNode(SyntaxNode::Kind::kCall, position);
    node->name = "negate";
    node->children.push_back(std::move(operand));
    return node;
  }

  // primary [:: type]...
  arrow::Result<std::unique_ptr<SyntaxNode>> ParsePostfix() {
    ARROW_ASSIGN_OR_RAISE(auto operand, ParsePrimary());
    while (Peek().kind == TokenKind::kDoubleColon) {
      auto node = MakeNode(SyntaxNode::Kind::kCast, Take().position);
      ARROW_ASSIGN_OR_RAISE(node->name, ParseTypeName());
      node->children.push_back(std::move(operand));
      operand = std::move(node);
    }
    return operand;
  }

  // A type name: one or two words (`double precision`, `timestamp with time zone` is three),
  // lower-cased; the binder resolves it.
  arrow::Result<std::string> ParseTypeName() {
    if (Peek().kind != TokenKind::kIdentifier) return Expected("a type name");
    std::string name = Lower(Take().text);
    while (Peek().kind == TokenKind::kIdentifier &&
           (IsKeyword(Peek(), "PRECISION") || IsKeyword(Peek(), "WITH") ||
            IsKeyword(Peek(), "WITHOUT") || IsKeyword(Peek(), "TIME") ||
            IsKeyword(Peek(), "ZONE") || IsKeyword(Peek(), "VARYING"))) {
      name += " " + Lower(Take().text);
    }
    return name;
  }

  static std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParsePrimary() {
    if (Peek().kind == TokenKind::kLeftParen) {
      RETURN_NOT_OK(Enter());
      Take();
      ARROW_ASSIGN_OR_RAISE(auto inner, ParseOr());
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' or a continuation with AND / OR"));
      --depth_;
      return inner;
    }
    if (IsKeyword(Peek(), "CASE")) return ParseCase();
    if ((IsKeyword(Peek(), "CAST") || IsKeyword(Peek(), "TRY_CAST")) &&
        Peek(1).kind == TokenKind::kLeftParen) {
      RETURN_NOT_OK(Enter());
      auto node = MakeNode(SyntaxNode::Kind::kCast, Peek().position);
      node->negated = IsKeyword(Take(), "TRY_CAST");
      Take();  // '('
      ARROW_ASSIGN_OR_RAISE(auto operand, ParseOr());
      if (!TakeKeyword("AS")) return Expected("AS and a type in CAST(value AS type)");
      ARROW_ASSIGN_OR_RAISE(node->name, ParseTypeName());
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' to close CAST"));
      node->children.push_back(std::move(operand));
      --depth_;
      return node;
    }
    if (Peek().kind == TokenKind::kIdentifier && Peek(1).kind == TokenKind::kLeftParen &&
        !IsReserved(Peek())) {
      RETURN_NOT_OK(Enter());
      auto call = ParseCall();
      --depth_;
      return call;
    }
    return ParseOperand();
  }

  // CASE [operand] WHEN a THEN b [WHEN ...] [ELSE c] END
  arrow::Result<std::unique_ptr<SyntaxNode>> ParseCase() {
    RETURN_NOT_OK(Enter());
    auto node = MakeNode(SyntaxNode::Kind::kCase, Take().position);
    if (!IsKeyword(Peek(), "WHEN")) {
      ARROW_ASSIGN_OR_RAISE(auto operand, ParseOr());
      node->children.push_back(std::move(operand));
      node->has_operand = true;
    }
    if (!IsKeyword(Peek(), "WHEN")) return Expected("WHEN in CASE");
    while (TakeKeyword("WHEN")) {
      ARROW_ASSIGN_OR_RAISE(auto when, ParseOr());
      if (!TakeKeyword("THEN")) return Expected("THEN after the WHEN condition");
      ARROW_ASSIGN_OR_RAISE(auto then, ParseOr());
      node->children.push_back(std::move(when));
      node->children.push_back(std::move(then));
    }
    if (TakeKeyword("ELSE")) {
      ARROW_ASSIGN_OR_RAISE(auto otherwise, ParseOr());
      node->children.push_back(std::move(otherwise));
      node->has_else = true;
    }
    if (!TakeKeyword("END")) return Expected("WHEN, ELSE or END in CASE");
    --depth_;
    return node;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseCall() {
    const Token& name = Take();
    auto node = MakeNode(SyntaxNode::Kind::kCall, name.position);
    node->name = Lower(name.text);
    Take();  // '('
    if (sql_ && Peek().kind == TokenKind::kStar && Peek(1).kind == TokenKind::kRightParen) {
      Take();
      Take();
      node->star = true;
      return node;
    }
    if (sql_ && IsKeyword(Peek(), "DISTINCT")) {
      Take();
      node->distinct = true;
    }
    if (Peek().kind == TokenKind::kRightParen) {
      Take();
      return node;
    }
    // extract(year FROM ts) is date_part('year', ts).
    if (node->name == "extract" && Peek().kind == TokenKind::kIdentifier &&
        IsKeyword(Peek(1), "FROM")) {
      node->name = "date_part";
      auto field = MakeNode(SyntaxNode::Kind::kLiteral, Peek().position);
      field->literal.kind = LiteralValue::Kind::kString;
      field->literal.string = Lower(Take().text);
      Take();  // FROM
      node->children.push_back(std::move(field));
      ARROW_ASSIGN_OR_RAISE(auto operand, ParseOr());
      node->children.push_back(std::move(operand));
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' to close extract"));
      return node;
    }
    while (true) {
      if (Peek().kind == TokenKind::kLeftBracket) {
        auto array = MakeNode(SyntaxNode::Kind::kArray, Take().position);
        if (Peek().kind != TokenKind::kRightBracket) {
          while (true) {
            ARROW_ASSIGN_OR_RAISE(auto item, ParseConcat());
            array->children.push_back(std::move(item));
            if (Peek().kind == TokenKind::kComma) {
              Take();
              continue;
            }
            break;
          }
        }
        RETURN_NOT_OK(Expect(TokenKind::kRightBracket, "',' or ']' in the array"));
        node->children.push_back(std::move(array));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto argument, ParseOr());
        node->children.push_back(std::move(argument));
      }
      if (Peek().kind == TokenKind::kComma) {
        Take();
        continue;
      }
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "',' or ')' in the argument list"));
      return node;
    }
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseOperand() {
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kInteger:
      case TokenKind::kFloat:
        return ParseNumber(Take(), /*negative=*/false, token.position);
      case TokenKind::kString: {
        auto node = MakeNode(SyntaxNode::Kind::kLiteral, token.position);
        node->literal.kind = LiteralValue::Kind::kString;
        node->literal.string = Take().text;
        return node;
      }
      case TokenKind::kQuotedIdentifier: {
        auto node = MakeNode(SyntaxNode::Kind::kColumn, token.position);
        node->name = Take().text;
        TakeQualifiedName(node.get());
        return node;
      }
      case TokenKind::kIdentifier:
        return ParseWord();
      default:
        return Expected("a column, a literal or an expression");
    }
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseWord() {
    const Token& token = Peek();
    auto literal = MakeNode(SyntaxNode::Kind::kLiteral, token.position);
    if (IsKeyword(token, "TRUE") || IsKeyword(token, "FALSE")) {
      literal->literal.kind = LiteralValue::Kind::kBoolean;
      literal->literal.boolean = IsKeyword(token, "TRUE");
      Take();
      return literal;
    }
    if (IsKeyword(token, "NULL")) {
      Take();
      return literal;  // kNull
    }
    // INTERVAL '3' DAY or INTERVAL '3 days': the binder reads the amount and the unit.
    if (IsKeyword(token, "INTERVAL") && Peek(1).kind == TokenKind::kString) {
      auto node = MakeNode(SyntaxNode::Kind::kCall, Take().position);
      node->name = "interval";
      auto amount = MakeNode(SyntaxNode::Kind::kLiteral, Peek().position);
      amount->literal.kind = LiteralValue::Kind::kString;
      amount->literal.string = Take().text;
      node->children.push_back(std::move(amount));
      if (Peek().kind == TokenKind::kIdentifier && !IsReserved(Peek()) &&
          !IsKeyword(Peek(), "AND") && !IsKeyword(Peek(), "OR")) {
        auto unit = MakeNode(SyntaxNode::Kind::kLiteral, Peek().position);
        unit->literal.kind = LiteralValue::Kind::kString;
        unit->literal.string = Lower(Take().text);
        node->children.push_back(std::move(unit));
      }
      return node;
    }
    // SQL's niladic functions, pinned per statement (the binder folds them).
    if (IsKeyword(token, "CURRENT_TIMESTAMP") || IsKeyword(token, "CURRENT_DATE")) {
      auto node = MakeNode(SyntaxNode::Kind::kCall, token.position);
      node->name = Lower(Take().text);
      return node;
    }
    const bool is_date = IsKeyword(token, "DATE");
    if ((is_date || IsKeyword(token, "TIMESTAMP")) && Peek(1).kind == TokenKind::kString) {
      Take();
      const Token& value = Take();
      if (is_date) {
        const auto days = ParseDate(value.text);
        if (!days) {
          return FilterError(ErrorKind::kInvalidArgument, text_, value.position,
                             "syntax error: invalid DATE literal ", QuoteForMessage(value.text),
                             "; expected 'YYYY-MM-DD'");
        }
        literal->literal.kind = LiteralValue::Kind::kDate;
        literal->literal.integer = *days;
      } else {
        const auto nanoseconds = ParseTimestamp(value.text);
        if (!nanoseconds) {
          return FilterError(ErrorKind::kInvalidArgument, text_, value.position,
                             "syntax error: invalid TIMESTAMP literal ",
                             QuoteForMessage(value.text),
                             "; expected 'YYYY-MM-DD HH:MM:SS[.fffffffff][+HH:MM]'");
        }
        literal->literal.kind = LiteralValue::Kind::kTimestamp;
        literal->literal.integer = *nanoseconds;
      }
      return literal;
    }
    if (IsReserved(token)) {
      return FilterError(ErrorKind::kInvalidArgument, text_, token.position,
                         "syntax error: expected a column or a literal, found keyword '",
                         token.text, "' (write ", sql_ ? "`" : "\"", token.text, sql_ ? "`" : "\"",
                         " for a column of that name)");
    }
    auto column = MakeNode(SyntaxNode::Kind::kColumn, token.position);
    column->name = Take().text;
    TakeQualifiedName(column.get());
    return column;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseNumber(const Token& token, bool negative,
                                                         int position) {
    auto node = MakeNode(SyntaxNode::Kind::kLiteral, position);
    if (token.kind == TokenKind::kInteger) {
      // Exact up to 2^64 - 1 in magnitude, so every int64 and uint64 value can be written.
      constexpr __int128 kLimit = (static_cast<__int128>(1) << 64) - 1;
      __int128 value = 0;
      bool fits = true;
      for (char c : token.text) {
        value = value * 10 + (c - '0');
        if (value > kLimit) {
          fits = false;
          break;
        }
      }
      if (fits) {
        node->literal.kind = LiteralValue::Kind::kInteger;
        node->literal.integer = negative ? -value : value;
        return node;
      }
      // Beyond 64 bits: the nearest double (syntax.h says why that stays exact).
      node->literal.string = (negative ? "-" : "") + token.text;
    }
    const auto value = ParseFloatSpelling(token.text);
    if (!value) {
      return FilterError(ErrorKind::kInvalidArgument, text_, position,
                         token.kind == TokenKind::kInteger ? "integer" : "float", " literal ",
                         negative ? "-" : "", token.text,
                         " is out of range (beyond about 1.8e308, the largest double)");
    }
    node->literal.kind = LiteralValue::Kind::kFloat;
    node->literal.real = negative ? -*value : *value;
    return node;
  }

  bool IsReserved(const Token& token) const {
    return IsFilterReserved(token) || (sql_ && IsSqlReserved(token));
  }

  // SQL: `qualifier.name` after the qualifier's token (taken already).
  void TakeQualifiedName(SyntaxNode* column) {
    if (!sql_ || Peek().kind != TokenKind::kDot ||
        (Peek(1).kind != TokenKind::kIdentifier && Peek(1).kind != TokenKind::kQuotedIdentifier)) {
      return;
    }
    Take();  // '.'
    column->qualifier = std::move(column->name);
    column->name = Take().text;
  }

  SourceText text_;
  const std::vector<Token>& tokens_;
  bool sql_;
  size_t at_;
  int depth_ = 0;
};

}  // namespace

arrow::Result<std::unique_ptr<SyntaxNode>> ParseSyntax(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(auto tokens, Lex(text));
  return Parser(text, tokens, /*sql=*/false).Run();
}

arrow::Result<std::unique_ptr<SyntaxNode>> ParseSqlExpression(std::string_view text,
                                                              const std::vector<Token>& tokens,
                                                              size_t* at) {
  Parser parser(SourceText(text, SourceText::Style::kStatement), tokens, /*sql=*/true, *at);
  auto node = parser.RunExpression();
  *at = parser.at();
  return node;
}

}  // namespace tessera::expr
