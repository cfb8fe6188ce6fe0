// LIKE / ILIKE patterns: their grammar, and the one translation of a pattern into an Arrow
// string kernel that every pattern shape goes through.
//
// Grammar, over UTF-8 code points of the pattern:
//   %          any run of characters, including none
//   _          exactly one character (a code point, not a byte)
//   <escape>c  the character c itself, whatever it is (%, _, the escape, or any other)
//   c          any other character: itself
// The escape character is a backslash unless an ESCAPE clause names another one; ESCAPE ''
// means there is none. A pattern ending in a lone escape character is an error (it escapes
// nothing). The pattern covers the whole value: 'a%' is "starts with a".
//
// LIKE compares code points exactly (byte-wise). ILIKE compares them under Unicode simple case
// folding, as RE2's (?i) does: 'É' ILIKE 'é' is true, 'ß' ILIKE 'SS' is false.
//
// Why a translation of our own: Arrow's match_like has fast paths for prefix / suffix /
// substring patterns that ignore escapes ('%\b' would look for a backslash). Here escapes are
// resolved first; then a case-sensitive pattern that is exactly "literal", "literal%",
// "%literal" or "%literal%" runs the plain kernels (equal, starts_with, ends_with,
// match_substring) on the resolved literal, and everything else an anchored RE2 regex
// (match_substring_regex) with (?s), so that % and _ match line breaks too.
#pragma once

#include <arrow/array.h>
#include <arrow/datum.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::expr {

// The escape character of a LIKE without an ESCAPE clause.
inline constexpr std::string_view kDefaultLikeEscape = "\\";

// How a pattern is matched: the kernel and its operand.
struct LikeMatcher {
  enum class Kernel {
    kEqual,       // value == text
    kStartsWith,  // value starts with text
    kEndsWith,    // value ends with text
    kContains,    // value contains text
    kRegex,       // text is an RE2 regex matched anywhere (it is anchored itself)
  };
  Kernel kernel = Kernel::kRegex;
  std::string text;
};

// Checks an ESCAPE clause's string: one code point, or empty for no escape character.
arrow::Status CheckLikeEscape(std::string_view escape);

// Checks that `pattern` is a valid pattern for `escape` (one code point, or empty for none):
// valid UTF-8 and not ending in a lone escape. The message is a predicate ("is not valid
// UTF-8", "ends with its escape character ..."): callers name the pattern and its position.
arrow::Status CheckLikePattern(std::string_view pattern, std::string_view escape);

// The literal runs of `pattern`: its maximal sequences of literal characters (escapes
// resolved) between wildcards, in order, none empty. Every value the pattern matches contains
// each run: byte for byte under LIKE, character by character up to case under ILIKE. Indexes
// that look values up by their substrings (NGRAM) narrow a LIKE with them. `pattern` must pass
// CheckLikePattern.
std::vector<std::string> LikeLiteralRuns(std::string_view pattern, std::string_view escape);

// The one translation, for every pattern shape. `pattern` must pass CheckLikePattern.
arrow::Result<LikeMatcher> TranslateLike(std::string_view pattern, std::string_view escape,
                                         bool case_insensitive);

// `strings` (string or large_string) LIKE the pattern: a boolean per row, null for null rows.
arrow::Result<arrow::Datum> MatchLike(const std::shared_ptr<arrow::Array>& strings,
                                      const LikeMatcher& matcher);

// `strings` LIKE `patterns` row by row (both string or large_string, of equal length): null
// where either is null. Each distinct pattern of the batch is translated once and matched
// against all its rows at once (plain shapes byte-wise, as their kernels compare). Fails with
// InvalidArgument, naming `pattern_column`, on a pattern that CheckLikePattern rejects.
arrow::Result<arrow::Datum> MatchLikeRows(const std::shared_ptr<arrow::Array>& strings,
                                          const std::shared_ptr<arrow::Array>& patterns,
                                          std::string_view pattern_column, std::string_view escape,
                                          bool case_insensitive);

}  // namespace tessera::expr
