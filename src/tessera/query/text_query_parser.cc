#include "tessera/query/text_query_parser.h"

#include <cctype>
#include <cstdint>

#include "tessera/status.h"

namespace tessera::query {

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  arrow::Result<std::vector<TextClause>> ParseAll() {
    ARROW_ASSIGN_OR_RAISE(auto clauses, ParseClauses(0));
    if (position_ < text_.size()) {  // only a ')' stops ParseClauses early
      return Error("')' without a matching '('; remove it or add the '(' it closes");
    }
    return clauses;
  }

 private:
  template <typename... Args>
  arrow::Status Error(Args&&... args) const {
    return InvalidArgument("boolean text query at byte ", position_, ": ",
                           std::forward<Args>(args)..., " (query: '", text_, "')");
  }

  void SkipSpace() {
    while (position_ < text_.size() && IsSpace(text_[position_])) ++position_;
  }

  arrow::Result<std::vector<TextClause>> ParseClauses(int depth) {
    if (depth > kMaxTextQueryDepth) {
      return Error("parentheses nested deeper than ", kMaxTextQueryDepth, " levels");
    }
    std::vector<TextClause> clauses;
    for (;;) {
      SkipSpace();
      if (position_ >= text_.size() || text_[position_] == ')') return clauses;
      ARROW_ASSIGN_OR_RAISE(auto clause, ParseClause(depth));
      clauses.push_back(std::move(clause));
    }
  }

  arrow::Result<TextClause> ParseClause(int depth) {
    TextClause clause;
    const char sign = text_[position_];
    if (sign == '+' || sign == '-') {
      clause.occur = sign == '+' ? Occur::kMust : Occur::kMustNot;
      ++position_;
      if (position_ >= text_.size() || IsSpace(text_[position_]) || text_[position_] == ')') {
        return Error("'", sign, "' must be followed by the clause it applies to, without a space");
      }
    }
    const char first = text_[position_];
    if (first == '"') {
      const size_t open = position_;
      const size_t close = text_.find('"', open + 1);
      if (close == std::string_view::npos) {
        return Error("unterminated quote; close the phrase with '\"'");
      }
      clause.kind = TextClause::Kind::kPhrase;
      clause.text = std::string(text_.substr(open + 1, close - open - 1));
      position_ = close + 1;
      if (position_ < text_.size() && text_[position_] == '~') {
        ++position_;
        ARROW_ASSIGN_OR_RAISE(clause.slop, ParseNumber("phrase slop", 0, 1000000));
      }
      return EndOfClause(clause);
    }
    if (first == '(') {
      const size_t open = position_;
      ++position_;
      clause.kind = TextClause::Kind::kGroup;
      ARROW_ASSIGN_OR_RAISE(clause.children, ParseClauses(depth + 1));
      if (position_ >= text_.size()) {
        position_ = open;
        return Error("unterminated parenthesis; close it with ')'");
      }
      ++position_;  // ')'
      return EndOfClause(clause);
    }
    const size_t begin = position_;
    while (position_ < text_.size() && !IsSpace(text_[position_]) && text_[position_] != '(' &&
           text_[position_] != ')' && text_[position_] != '"' && text_[position_] != '~') {
      ++position_;
    }
    std::string_view word = text_.substr(begin, position_ - begin);
    if (word.empty()) return Error("expected a word, a \"phrase\" or a (group)");
    if (position_ < text_.size() && text_[position_] == '~') {
      ++position_;
      clause.kind = TextClause::Kind::kFuzzy;
      ARROW_ASSIGN_OR_RAISE(clause.fuzziness, ParseNumber("fuzziness", 1, 2));
    } else if (word.size() > 1 && word.back() == '*') {
      clause.kind = TextClause::Kind::kPrefix;
      word.remove_suffix(1);
    }
    clause.text = std::string(word);
    return EndOfClause(clause);
  }

  arrow::Result<int> ParseNumber(std::string_view what, int min, int max) {
    const size_t begin = position_;
    int64_t value = 0;
    while (position_ < text_.size() && IsDigit(text_[position_])) {
      value = value * 10 + (text_[position_] - '0');
      ++position_;
      if (value > max) break;
    }
    if (position_ == begin) {
      return Error("'~' must be followed by a number (the ", what, ", from ", min, " to ", max,
                   ")");
    }
    if (value < min || value > max) {
      position_ = begin;
      return Error("the ", what, " must be from ", min, " to ", max);
    }
    return static_cast<int>(value);
  }

  // A clause ends at white space, a ')' or the end of the text.
  arrow::Result<TextClause> EndOfClause(TextClause& clause) {
    if (position_ < text_.size() && !IsSpace(text_[position_]) && text_[position_] != ')') {
      return Error("unexpected '", text_[position_],
                   "'; separate clauses with a space (a '~N' or '*' ends its clause)");
    }
    return std::move(clause);
  }

  std::string_view text_;
  size_t position_ = 0;
};

}  // namespace

arrow::Result<std::vector<TextClause>> ParseBooleanQuery(std::string_view text) {
  return Parser(text).ParseAll();
}

}  // namespace tessera::query
