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

namespace {

bool IsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != TokenKind::kIdentifier || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(token.text[i])) != keyword[i]) return false;
  }
  return true;
}

// Words that can never be column names unless double-quoted.
bool IsReserved(const Token& token) {
  for (std::string_view keyword :
       {"AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "LIKE", "TRUE", "FALSE"}) {
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
  Parser(std::string_view text, std::vector<Token> tokens)
      : text_(text), tokens_(std::move(tokens)) {}

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
    // Parentheses and NOTs recurse; bound the depth so hostile input cannot exhaust the stack.
    if (++depth_ > kMaxDepth) {
      return FilterError(ErrorKind::kInvalidArgument, text_, Peek().position,
                         "the filter nests parentheses or NOTs more than ", kMaxDepth,
                         " levels deep");
    }
    auto result = ParseNotUnbounded();
    --depth_;
    return result;
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseNotUnbounded() {
    if (IsKeyword(Peek(), "NOT")) {
      auto node = MakeNode(SyntaxNode::Kind::kNot, Take().position);
      ARROW_ASSIGN_OR_RAISE(auto child, ParseNot());
      node->children.push_back(std::move(child));
      return node;
    }
    return ParsePrimary();
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParsePrimary() {
    if (Peek().kind == TokenKind::kLeftParen) {
      Take();
      ARROW_ASSIGN_OR_RAISE(auto inner, ParseOr());
      RETURN_NOT_OK(Expect(TokenKind::kRightParen, "')' or a continuation with AND / OR"));
      return inner;
    }
    if (Peek().kind == TokenKind::kIdentifier && Peek(1).kind == TokenKind::kLeftParen &&
        !IsReserved(Peek())) {
      return ParseCall();
    }
    ARROW_ASSIGN_OR_RAISE(auto operand, ParseOperand());
    return ParseSuffix(std::move(operand));
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseSuffix(std::unique_ptr<SyntaxNode> operand) {
    const Token& token = Peek();
    std::optional<CompareOp> op;
    switch (token.kind) {
      case TokenKind::kEqual:
        op = CompareOp::kEqual;
        break;
      case TokenKind::kNotEqual:
        op = CompareOp::kNotEqual;
        break;
      case TokenKind::kLess:
        op = CompareOp::kLess;
        break;
      case TokenKind::kLessEqual:
        op = CompareOp::kLessEqual;
        break;
      case TokenKind::kGreater:
        op = CompareOp::kGreater;
        break;
      case TokenKind::kGreaterEqual:
        op = CompareOp::kGreaterEqual;
        break;
      default:
        break;
    }
    if (op) {
      auto node = MakeNode(SyntaxNode::Kind::kCompare, Take().position);
      node->op = *op;
      ARROW_ASSIGN_OR_RAISE(auto right, ParseOperand());
      node->children.push_back(std::move(operand));
      node->children.push_back(std::move(right));
      return node;
    }
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
        ARROW_ASSIGN_OR_RAISE(auto item, ParseOperand());
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
      ARROW_ASSIGN_OR_RAISE(auto lower, ParseOperand());
      node->children.push_back(std::move(lower));
      if (!TakeKeyword("AND")) return Expected("AND between the bounds of BETWEEN");
      ARROW_ASSIGN_OR_RAISE(auto upper, ParseOperand());
      node->children.push_back(std::move(upper));
      return node;
    }
    if (IsKeyword(Peek(), "LIKE") || IsKeyword(Peek(), "ILIKE")) {
      auto node = MakeNode(SyntaxNode::Kind::kLike, position);
      node->name = IsKeyword(Take(), "ILIKE") ? "ilike" : "like";
      node->negated = negated;
      node->children.push_back(std::move(operand));
      ARROW_ASSIGN_OR_RAISE(auto pattern, ParseOperand());
      node->children.push_back(std::move(pattern));
      // ESCAPE is not reserved: after a pattern nothing else may follow as a bare word.
      if (TakeKeyword("ESCAPE")) {
        ARROW_ASSIGN_OR_RAISE(auto escape, ParseOperand());
        node->children.push_back(std::move(escape));
      }
      return node;
    }
    if (TakeKeyword("IS")) {
      auto node = MakeNode(SyntaxNode::Kind::kIsNull, position);
      node->negated = TakeKeyword("NOT");
      if (!TakeKeyword("NULL")) return Expected(node->negated ? "NULL" : "NULL or NOT NULL");
      node->children.push_back(std::move(operand));
      return node;
    }
    // A bare operand is a predicate of its own (a boolean column, TRUE); the binder checks it.
    switch (token.kind) {
      case TokenKind::kEnd:
      case TokenKind::kRightParen:
        return operand;
      default:
        if (IsKeyword(token, "AND") || IsKeyword(token, "OR")) return operand;
        return Expected(
            "a comparison (=, !=, <>, <, <=, >, >=, IN, BETWEEN, LIKE, ILIKE, IS NULL), AND, OR or "
            "end of filter");
    }
  }

  arrow::Result<std::unique_ptr<SyntaxNode>> ParseCall() {
    const Token& name = Take();
    auto node = MakeNode(SyntaxNode::Kind::kCall, name.position);
    node->name = name.text;
    std::transform(node->name.begin(), node->name.end(), node->name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    Take();  // '('
    if (Peek().kind == TokenKind::kRightParen) {
      Take();
      return node;
    }
    while (true) {
      if (Peek().kind == TokenKind::kLeftBracket) {
        auto array = MakeNode(SyntaxNode::Kind::kArray, Take().position);
        if (Peek().kind != TokenKind::kRightBracket) {
          while (true) {
            ARROW_ASSIGN_OR_RAISE(auto item, ParseOperand());
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
        ARROW_ASSIGN_OR_RAISE(auto argument, ParseOperand());
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
      case TokenKind::kMinus:
      case TokenKind::kPlus: {
        const bool negative = token.kind == TokenKind::kMinus;
        const int position = Take().position;
        if (Peek().kind != TokenKind::kInteger && Peek().kind != TokenKind::kFloat) {
          return Expected(negative ? "a number after '-'" : "a number after '+'");
        }
        return ParseNumber(Take(), negative, position);
      }
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
        return node;
      }
      case TokenKind::kIdentifier:
        return ParseWord();
      default:
        return Expected("a column or a literal");
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
                             "; expected 'YYYY-MM-DD HH:MM:SS[.fffffffff]'");
        }
        literal->literal.kind = LiteralValue::Kind::kTimestamp;
        literal->literal.integer = *nanoseconds;
      }
      return literal;
    }
    if (IsReserved(token)) {
      return FilterError(ErrorKind::kInvalidArgument, text_, token.position,
                         "syntax error: expected a column or a literal, found keyword '",
                         token.text, "' (write \"", token.text, "\" for a column of that name)");
    }
    auto column = MakeNode(SyntaxNode::Kind::kColumn, token.position);
    column->name = Take().text;
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

  static constexpr int kMaxDepth = 256;

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  int depth_ = 0;
};

}  // namespace

arrow::Result<std::unique_ptr<SyntaxNode>> ParseSyntax(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(auto tokens, Lex(text));
  return Parser(text, std::move(tokens)).Run();
}

}  // namespace tessera::expr
