#include "tessera/expr/like_pattern.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/utf8.h>

#include <cctype>
#include <unordered_map>
#include <vector>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/evaluator.h"
#include "tessera/status.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;

// Length in bytes of the UTF-8 sequence starting with `lead` (the text is valid UTF-8).
size_t SequenceLength(char first) {
  const auto lead = static_cast<unsigned char>(first);
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  return 4;
}

size_t CountCodePoints(std::string_view text) {
  size_t count = 0;
  for (size_t at = 0; at < text.size(); at += SequenceLength(text[at])) ++count;
  return count;
}

// A pattern split into its pieces: literal characters (escapes resolved), _ and %.
struct Piece {
  enum class Kind { kLiteral, kOne, kAny };
  Kind kind;
  std::string_view text;  // kLiteral: one code point
};

std::vector<Piece> SplitPattern(std::string_view pattern, std::string_view escape) {
  std::vector<Piece> pieces;
  size_t at = 0;
  while (at < pattern.size()) {
    size_t length = SequenceLength(pattern[at]);
    std::string_view point = pattern.substr(at, length);
    at += length;
    if (!escape.empty() && point == escape && at < pattern.size()) {
      length = SequenceLength(pattern[at]);
      pieces.push_back({Piece::Kind::kLiteral, pattern.substr(at, length)});
      at += length;
    } else if (point == "%") {
      if (pieces.empty() || pieces.back().kind != Piece::Kind::kAny) {
        pieces.push_back({Piece::Kind::kAny, {}});
      }
    } else if (point == "_") {
      pieces.push_back({Piece::Kind::kOne, {}});
    } else {
      pieces.push_back({Piece::Kind::kLiteral, point});
    }
  }
  return pieces;
}

// `point` as an RE2 regex matching exactly it, as RE2::QuoteMeta quotes: ASCII punctuation
// gets a backslash, NUL is \x00, letters, digits and non-ASCII code points stand for themselves.
void AppendQuoted(std::string_view point, std::string* regex) {
  const unsigned char c = point[0];
  if (c == '\0') {
    regex->append("\\x00");
  } else if (c < 0x80 && !std::isalnum(c) && c != '_') {
    regex->push_back('\\');
    regex->push_back(static_cast<char>(c));
  } else {
    regex->append(point);
  }
}

std::shared_ptr<arrow::Scalar> StringScalarOf(const arrow::DataType& type, std::string text) {
  if (type.id() == arrow::Type::LARGE_STRING) {
    return std::make_shared<arrow::LargeStringScalar>(std::move(text));
  }
  return std::make_shared<arrow::StringScalar>(std::move(text));
}

std::string_view ViewAt(const arrow::Array& array, int64_t row) {
  if (array.type_id() == arrow::Type::LARGE_STRING) {
    return static_cast<const arrow::LargeStringArray&>(array).GetView(row);
  }
  return static_cast<const arrow::StringArray&>(array).GetView(row);
}

// What the plain kernel of `matcher` (not kRegex) says of `value`.
bool MatchesPlain(std::string_view value, const LikeMatcher& matcher) {
  const std::string_view text = matcher.text;
  switch (matcher.kernel) {
    case LikeMatcher::Kernel::kEqual:
      return value == text;
    case LikeMatcher::Kernel::kStartsWith:
      return value.starts_with(text);
    case LikeMatcher::Kernel::kEndsWith:
      return value.ends_with(text);
    case LikeMatcher::Kernel::kContains:
      return value.find(text) != std::string_view::npos;
    case LikeMatcher::Kernel::kRegex:
      break;
  }
  return false;
}

}  // namespace

arrow::Status CheckLikeEscape(std::string_view escape) {
  arrow::util::InitializeUTF8();
  if (!arrow::util::ValidateUTF8(escape) || CountCodePoints(escape) > 1) {
    return InvalidArgument("ESCAPE takes a single character (or '' for none), found ",
                           QuoteForMessage(escape));
  }
  return arrow::Status::OK();
}

arrow::Status CheckLikePattern(std::string_view pattern, std::string_view escape) {
  arrow::util::InitializeUTF8();
  if (!arrow::util::ValidateUTF8(pattern)) return InvalidArgument("is not valid UTF-8");
  if (escape.empty()) return arrow::Status::OK();
  size_t at = 0;
  while (at < pattern.size()) {
    const size_t length = SequenceLength(pattern[at]);
    const bool is_escape = pattern.substr(at, length) == escape;
    at += length;
    if (!is_escape) continue;
    if (at >= pattern.size()) {
      return InvalidArgument("ends with its escape character ", QuoteForMessage(escape),
                             ", which escapes nothing; double it to match it literally",
                             escape == kDefaultLikeEscape ? " or write ESCAPE '' for none" : "");
    }
    at += SequenceLength(pattern[at]);
  }
  return arrow::Status::OK();
}

std::vector<std::string> LikeLiteralRuns(std::string_view pattern, std::string_view escape) {
  std::vector<std::string> runs;
  std::string run;
  for (const Piece& piece : SplitPattern(pattern, escape)) {
    if (piece.kind == Piece::Kind::kLiteral) {
      run.append(piece.text);
    } else if (!run.empty()) {
      runs.push_back(std::move(run));
      run.clear();
    }
  }
  if (!run.empty()) runs.push_back(std::move(run));
  return runs;
}

arrow::Result<LikeMatcher> TranslateLike(std::string_view pattern, std::string_view escape,
                                         bool case_insensitive) {
  const std::vector<Piece> pieces = SplitPattern(pattern, escape);
  LikeMatcher matcher;
  if (!case_insensitive) {
    // literal, literal%, %literal or %literal%: the plain kernels on the resolved literal.
    const bool leading_any = !pieces.empty() && pieces.front().kind == Piece::Kind::kAny;
    const bool trailing_any =
        pieces.size() > (leading_any ? 1u : 0u) && pieces.back().kind == Piece::Kind::kAny;
    const size_t begin = leading_any ? 1 : 0;
    const size_t end = pieces.size() - (trailing_any ? 1 : 0);
    bool plain = true;
    std::string literal;
    for (size_t i = begin; i < end && plain; ++i) {
      plain = pieces[i].kind == Piece::Kind::kLiteral;
      literal.append(pieces[i].text);
    }
    if (plain) {
      matcher.text = std::move(literal);
      if (leading_any) {
        matcher.kernel = trailing_any || matcher.text.empty() ? LikeMatcher::Kernel::kContains
                                                              : LikeMatcher::Kernel::kEndsWith;
      } else {
        matcher.kernel =
            trailing_any ? LikeMatcher::Kernel::kStartsWith : LikeMatcher::Kernel::kEqual;
      }
      return matcher;
    }
  }
  // (?s): . matches a line break too; \A and \z anchor at the ends of the value only.
  matcher.kernel = LikeMatcher::Kernel::kRegex;
  matcher.text = case_insensitive ? "(?is)\\A" : "(?s)\\A";
  for (const Piece& piece : pieces) {
    switch (piece.kind) {
      case Piece::Kind::kAny:
        matcher.text.append(".*");
        break;
      case Piece::Kind::kOne:
        matcher.text.push_back('.');
        break;
      case Piece::Kind::kLiteral:
        AppendQuoted(piece.text, &matcher.text);
        break;
    }
  }
  matcher.text.append("\\z");
  return matcher;
}

arrow::Result<arrow::Datum> MatchLike(const std::shared_ptr<arrow::Array>& strings,
                                      const LikeMatcher& matcher) {
  RETURN_NOT_OK(EnsureComputeInitialized());  // callers outside evaluation (n-gram indexes) too
  if (matcher.kernel == LikeMatcher::Kernel::kEqual) {
    return compute::CallFunction("equal",
                                 {strings, StringScalarOf(*strings->type(), matcher.text)});
  }
  compute::MatchSubstringOptions options(matcher.text);
  switch (matcher.kernel) {
    case LikeMatcher::Kernel::kStartsWith:
      return compute::CallFunction("starts_with", {strings}, &options);
    case LikeMatcher::Kernel::kEndsWith:
      return compute::CallFunction("ends_with", {strings}, &options);
    case LikeMatcher::Kernel::kContains:
      return compute::CallFunction("match_substring", {strings}, &options);
    default:
      return compute::CallFunction("match_substring_regex", {strings}, &options);
  }
}

arrow::Result<arrow::Datum> MatchLikeRows(const std::shared_ptr<arrow::Array>& strings,
                                          const std::shared_ptr<arrow::Array>& patterns,
                                          std::string_view pattern_column, std::string_view escape,
                                          bool case_insensitive) {
  RETURN_NOT_OK(EnsureComputeInitialized());
  const int64_t rows = strings->length();
  // The rows of each distinct pattern, in order of first appearance.
  std::unordered_map<std::string_view, size_t> group_of;
  std::vector<std::pair<std::string_view, std::vector<int64_t>>> groups;
  const auto pattern_at = [&](int64_t row) { return ViewAt(*patterns, row); };
  const auto string_at = [&](int64_t row) { return ViewAt(*strings, row); };
  for (int64_t row = 0; row < rows; ++row) {
    if (strings->IsNull(row) || patterns->IsNull(row)) continue;
    const std::string_view pattern = pattern_at(row);
    const auto [found, added] = group_of.emplace(pattern, groups.size());
    if (added) groups.push_back({pattern, {}});
    groups[found->second].second.push_back(row);
  }
  // 0 false, 1 true, 2 null (unknown): filled group by group.
  std::vector<uint8_t> truth(rows, 2);
  for (const auto& [pattern, members] : groups) {
    const auto checked = CheckLikePattern(pattern, escape);
    if (!checked.ok()) {
      return InvalidArgument("the LIKE pattern ", QuoteForMessage(pattern), " in column '",
                             pattern_column, "' (row ", members[0], " of the batch) ",
                             checked.message());
    }
    ARROW_ASSIGN_OR_RAISE(const LikeMatcher matcher,
                          TranslateLike(pattern, escape, case_insensitive));
    if (matcher.kernel != LikeMatcher::Kernel::kRegex) {
      // The plain kernels compare bytes: do so here, without a kernel call per distinct
      // pattern (a column of patterns is often all distinct).
      for (int64_t row : members) {
        truth[row] = MatchesPlain(string_at(row), matcher) ? 1 : 0;
      }
      continue;
    }
    arrow::Int64Builder indices;
    RETURN_NOT_OK(indices.AppendValues(members));
    ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, compute::Take(strings, index_array));
    ARROW_ASSIGN_OR_RAISE(auto matched, MatchLike(taken.make_array(), matcher));
    const std::shared_ptr<arrow::Array> matched_array = matched.make_array();
    const auto& booleans = static_cast<const arrow::BooleanArray&>(*matched_array);
    for (size_t i = 0; i < members.size(); ++i) {
      truth[members[i]] = booleans.Value(static_cast<int64_t>(i)) ? 1 : 0;
    }
  }
  arrow::BooleanBuilder builder;
  RETURN_NOT_OK(builder.Reserve(rows));
  for (int64_t row = 0; row < rows; ++row) {
    if (truth[row] == 2) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(truth[row] == 1);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  return arrow::Datum(std::move(result));
}

}  // namespace tessera::expr
