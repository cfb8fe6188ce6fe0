#include "tessera/expr/lexer.h"

#include <cctype>

#include "tessera/expr/diagnostics.h"

namespace tessera::expr {

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return token.text.empty() ? "end of filter" : token.text;
    case TokenKind::kString:
      return "string " + QuoteForMessage(token.text);
    case TokenKind::kQuotedIdentifier:
      return "\"" + token.text + "\"";
    default:
      return "'" + token.text + "'";
  }
}

namespace {

bool IsIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentifierPart(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
 public:
  Lexer(std::string_view text, const LexOptions& options)
      : text_(text, options.sql ? SourceText::Style::kStatement : SourceText::Style::kFilter),
        sql_(options.sql) {}

  arrow::Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      RETURN_NOT_OK(SkipSpace());
      if (at_ >= size()) {
        tokens.push_back({TokenKind::kEnd, sql_ ? "end of input" : "", position_});
        return tokens;
      }
      ARROW_ASSIGN_OR_RAISE(auto token, Next());
      tokens.push_back(std::move(token));
    }
  }

 private:
  size_t size() const { return text_.text.size(); }
  std::string_view rest(size_t length) const { return text_.text.substr(at_, length); }
  char Peek(size_t ahead = 0) const {
    return at_ + ahead < size() ? text_.text[at_ + ahead] : '\0';
  }

  // Advances one byte; positions count code points, so UTF-8 continuation bytes don't count.
  void Advance() {
    ++at_;
    if (at_ < size() && (static_cast<unsigned char>(text_.text[at_]) & 0xC0) == 0x80) return;
    ++position_;
  }

  // Blanks, and in SQL comments: -- to the end of the line, /* to */.
  arrow::Status SkipSpace() {
    while (at_ < size()) {
      if (std::isspace(static_cast<unsigned char>(Peek()))) {
        Advance();
      } else if (sql_ && Peek() == '-' && Peek(1) == '-') {
        while (at_ < size() && Peek() != '\n') Advance();
      } else if (sql_ && Peek() == '/' && Peek(1) == '*') {
        const int start = position_;
        Advance();
        Advance();
        while (!(Peek() == '*' && Peek(1) == '/')) {
          if (at_ >= size()) {
            return FilterError(ErrorKind::kInvalidArgument, text_, start,
                               "syntax error: unterminated comment; close it with */");
          }
          Advance();
        }
        Advance();
        Advance();
      } else {
        break;
      }
    }
    return arrow::Status::OK();
  }

  Token Simple(TokenKind kind, int length, int start) {
    std::string spelling(rest(length));
    for (int i = 0; i < length; ++i) Advance();
    return {kind, std::move(spelling), start};
  }

  arrow::Result<Token> Next() {
    const int start = position_;
    const char c = Peek();
    if (IsIdentifierStart(c)) {
      const size_t begin = at_;
      while (IsIdentifierPart(Peek())) Advance();
      return Token{TokenKind::kIdentifier, std::string(text_.text.substr(begin, at_ - begin)),
                   start};
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return Number(start);
    if (sql_) {
      switch (c) {
        case '"':
          return String(start, '"');
        case '`':
          return QuotedIdentifier(start, '`');
        case ';':
          return Simple(TokenKind::kSemicolon, 1, start);
        case '.':
          return Simple(TokenKind::kDot, 1, start);
        case '=':
          if (Peek(1) == '>') return Simple(TokenKind::kArrow, 2, start);
          break;
        default:
          break;
      }
    }
    switch (c) {
      case '\'':
        return String(start, '\'');
      case '"':
        return QuotedIdentifier(start, '"');
      case '=':
        return Simple(TokenKind::kEqual, Peek(1) == '=' ? 2 : 1, start);
      case '!':
        if (Peek(1) == '=') return Simple(TokenKind::kNotEqual, 2, start);
        break;
      case '<':
        if (Peek(1) == '=') return Simple(TokenKind::kLessEqual, 2, start);
        if (Peek(1) == '>') return Simple(TokenKind::kNotEqual, 2, start);
        return Simple(TokenKind::kLess, 1, start);
      case '>':
        if (Peek(1) == '=') return Simple(TokenKind::kGreaterEqual, 2, start);
        return Simple(TokenKind::kGreater, 1, start);
      case '-':
        return Simple(TokenKind::kMinus, 1, start);
      case '+':
        return Simple(TokenKind::kPlus, 1, start);
      case '(':
        return Simple(TokenKind::kLeftParen, 1, start);
      case ')':
        return Simple(TokenKind::kRightParen, 1, start);
      case '[':
        return Simple(TokenKind::kLeftBracket, 1, start);
      case ']':
        return Simple(TokenKind::kRightBracket, 1, start);
      case ',':
        return Simple(TokenKind::kComma, 1, start);
      case '*':
        return Simple(TokenKind::kStar, 1, start);
      case '/':
        return Simple(TokenKind::kSlash, 1, start);
      case '%':
        return Simple(TokenKind::kPercent, 1, start);
      case '|':
        if (Peek(1) == '|') return Simple(TokenKind::kConcat, 2, start);
        break;
      case ':':
        if (Peek(1) == ':') return Simple(TokenKind::kDoubleColon, 2, start);
        break;
      default:
        break;
    }
    // Show the whole UTF-8 sequence of the offending character, not a lone lead byte.
    size_t length = 1;
    while (at_ + length < size() &&
           (static_cast<unsigned char>(text_.text[at_ + length]) & 0xC0) == 0x80) {
      ++length;
    }
    if (sql_) {
      return FilterError(ErrorKind::kInvalidArgument, text_, start, "syntax error: unexpected '",
                         rest(length), "'",
                         static_cast<unsigned char>(c) >= 0x80
                             ? "; back-quote names that are not plain identifiers: `my column`"
                             : "");
    }
    return FilterError(ErrorKind::kInvalidArgument, text_, start, "syntax error: unexpected '",
                       rest(length), "'",
                       c == '`' || static_cast<unsigned char>(c) >= 0x80
                           ? "; double-quote column names that are not plain identifiers: "
                             "\"my column\""
                           : "");
  }

  arrow::Result<Token> Number(int start) {
    const size_t begin = at_;
    bool is_float = false;
    while (IsDigit(Peek())) Advance();
    if (Peek() == '.') {
      is_float = true;
      Advance();
      while (IsDigit(Peek())) Advance();
    }
    if (Peek() == 'e' || Peek() == 'E') {
      const bool has_sign = Peek(1) == '+' || Peek(1) == '-';
      if (IsDigit(Peek(has_sign ? 2 : 1))) {
        is_float = true;
        Advance();
        if (has_sign) Advance();
        while (IsDigit(Peek())) Advance();
      }
    }
    if (IsIdentifierPart(Peek()) || Peek() == '.') {
      return FilterError(ErrorKind::kInvalidArgument, text_, start,
                         "syntax error: malformed number '",
                         text_.text.substr(begin, at_ - begin + 1), "'");
    }
    return Token{is_float ? TokenKind::kFloat : TokenKind::kInteger,
                 std::string(text_.text.substr(begin, at_ - begin)), start};
  }

  // 'text' with '' for a quote and backslash escapes \' \\ \n \t \r \0. \% and \_ keep their
  // backslash, so LIKE patterns can escape wildcards as in MySQL: '100\%'. In SQL "text" too,
  // with "" for a double quote.
  arrow::Result<Token> String(int start, char quote) {
    Advance();  // opening quote
    std::string value;
    while (true) {
      if (at_ >= size()) {
        return FilterError(ErrorKind::kInvalidArgument, text_, start,
                           "syntax error: unterminated string literal; close it with ", quote);
      }
      const char c = Peek();
      if (c == quote) {
        if (Peek(1) == quote) {
          value += quote;
          Advance();
          Advance();
          continue;
        }
        Advance();
        return Token{TokenKind::kString, std::move(value), start};
      }
      if (c == '\\') {
        const int escape_position = position_;
        const char next = Peek(1);
        switch (next) {
          case '\'':
          case '\\':
          case '"':
            value += next;
            break;
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case 'r':
            value += '\r';
            break;
          case '0':
            value += '\0';
            break;
          case '%':
          case '_':
            value += '\\';
            value += next;
            break;
          default:
            return FilterError(ErrorKind::kInvalidArgument, text_, escape_position,
                               "syntax error: unknown escape sequence '\\",
                               rest(at_ + 1 < size() ? 2 : 1).substr(1),
                               "' in string literal; write '\\\\' for a backslash");
        }
        Advance();
        Advance();
        continue;
      }
      value += c;
      Advance();
    }
  }

  // "any name" with "" for a double quote inside (SQL: `any name` with ``).
  arrow::Result<Token> QuotedIdentifier(int start, char quote) {
    Advance();
    std::string name;
    while (true) {
      if (at_ >= size()) {
        return FilterError(ErrorKind::kInvalidArgument, text_, start, "syntax error: unterminated ",
                           sql_ ? "quoted name" : "quoted column name", "; close it with ", quote);
      }
      const char c = Peek();
      if (c == quote) {
        if (Peek(1) == quote) {
          name += quote;
          Advance();
          Advance();
          continue;
        }
        Advance();
        if (name.empty()) {
          return FilterError(ErrorKind::kInvalidArgument, text_, start,
                             "syntax error: empty quoted ", sql_ ? "name" : "column name");
        }
        return Token{TokenKind::kQuotedIdentifier, std::move(name), start};
      }
      name += c;
      Advance();
    }
  }

  SourceText text_;
  bool sql_;
  size_t at_ = 0;
  int position_ = 1;
};

}  // namespace

arrow::Result<std::vector<Token>> Lex(std::string_view text, const LexOptions& options) {
  return Lexer(text, options).Run();
}

}  // namespace tessera::expr
