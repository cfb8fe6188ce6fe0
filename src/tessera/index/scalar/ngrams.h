// N-grams of strings, as the NGRAM family (ngram_family.h) indexes and queries them: the grams a
// value holds, and the grams every value satisfying a substring predicate must hold.
//
// A gram is `n` consecutive bytes (1 <= n <= 8) of a value, after case folding when the scheme
// folds. Bytes, not code points: LIKE, contains and starts_with compare byte-wise
// (docs/filters.md), and a byte substring of valid UTF-8 text in valid UTF-8 text is always
// aligned on code points, so byte grams lose nothing. n bytes fit in 64 bits: a gram is packed
// big-endian into a uint64, which is injective for a fixed n (values shorter than n have no
// grams).
//
// Case folding (the scheme's `case_folding`), the same map on values and on queries: ASCII A-Z
// to a-z, and the two non-ASCII code points that Unicode simple case folding relates to ASCII
// letters, U+212A KELVIN SIGN to k and U+017F LATIN SMALL LETTER LONG S to s. Every other byte
// is kept. The map works character by character, so a value containing a text also contains
// the folded text once both are folded: case-sensitive queries stay answerable (as supersets).
// ILIKE compares under Unicode simple case folding (RE2's (?i)); its characters that fold to
// ASCII fold here to the same letter as every character RE2 equates with them, but other
// non-ASCII letters (É / é) are not folded, so an ILIKE keeps only its grams made of ASCII
// bytes: never one that could miss a row.
//
// Invariant of RequiredGrams: every value for which the leaf is TRUE holds every returned gram.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/expr/ast.h"

namespace tessera::index::scalar {

inline constexpr int kMinGramLength = 1;
inline constexpr int kMaxGramLength = 8;  // a gram fits in a 64-bit key

using Gram = uint64_t;

struct GramScheme {
  int n = 3;
  bool case_folding = true;
};

// `text` under the folding above (used whatever the scheme says; callers decide).
std::string FoldCase(std::string_view text);

// `bytes` (1 to 8 of them) packed big-endian; UnpackGram is its inverse for a gram of `n` bytes.
Gram PackGram(std::string_view bytes);
std::string UnpackGram(Gram gram, int n);

// The distinct grams of `value` under `scheme`, ascending, in `grams` (cleared first).
void GramsOfValue(std::string_view value, const GramScheme& scheme, std::vector<Gram>* grams);

// The grams every value containing each of `runs` (byte for byte, or up to case when
// `case_insensitive`) holds under `scheme`: ascending, distinct, possibly none. nullopt when the
// scheme cannot say (ILIKE on a scheme that does not fold).
std::optional<std::vector<Gram>> RequiredGramsOfRuns(const std::vector<std::string>& runs,
                                                     bool case_insensitive,
                                                     const GramScheme& scheme);

// What a segment of `scheme` can do with a filter leaf on its column.
struct GramQuery {
  enum class Kind {
    kNone,   // not a substring predicate on a literal, or no gram narrows it: scan
    kGrams,  // the candidates are the rows holding every gram of `grams` (not empty)
  };
  Kind kind = Kind::kNone;
  std::vector<Gram> grams;  // ascending, distinct
};

// Leaves answered: contains(column, 'text') and starts_with(column, 'text') calls, and
// column [I]LIKE 'pattern' with a literal pattern.
GramQuery GramQueryOf(const expr::Node& leaf, const GramScheme& scheme);

}  // namespace tessera::index::scalar
