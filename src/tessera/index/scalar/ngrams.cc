#include "tessera/index/scalar/ngrams.h"

#include <arrow/scalar.h>

#include <algorithm>

#include "tessera/expr/functions.h"
#include "tessera/expr/like_pattern.h"

namespace tessera::index::scalar {

namespace {

// UTF-8 of the two non-ASCII code points whose case orbit holds an ASCII letter.
constexpr std::string_view kKelvinSign = "\xE2\x84\xAA";  // U+212A, folds with k and K
constexpr std::string_view kLongS = "\xC5\xBF";           // U+017F, folds with s and S

bool IsAscii(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

void AppendWindows(std::string_view text, int n, bool ascii_only, std::vector<Gram>* grams) {
  const auto length = static_cast<size_t>(n);
  for (size_t at = 0; at + length <= text.size(); ++at) {
    const std::string_view window = text.substr(at, length);
    if (ascii_only && !IsAscii(window)) continue;
    grams->push_back(PackGram(window));
  }
}

void SortDistinct(std::vector<Gram>* grams) {
  std::sort(grams->begin(), grams->end());
  grams->erase(std::unique(grams->begin(), grams->end()), grams->end());
}

// The string of a literal argument; nullopt for a null one (the binder rejects
// contains(s, NULL), so none reaches a reader).
std::optional<std::string> LiteralText(const expr::Node& node) {
  const auto& scalar = node.As<expr::Literal>().value();
  if (!scalar->is_valid) return std::nullopt;
  if (scalar->type->id() == arrow::Type::STRING) {
    return static_cast<const arrow::StringScalar&>(*scalar).ToString();
  }
  if (scalar->type->id() == arrow::Type::LARGE_STRING) {
    return static_cast<const arrow::LargeStringScalar&>(*scalar).ToString();
  }
  return std::nullopt;
}

GramQuery FromRuns(const std::vector<std::string>& runs, bool case_insensitive,
                   const GramScheme& scheme) {
  GramQuery query;
  auto grams = RequiredGramsOfRuns(runs, case_insensitive, scheme);
  if (grams && !grams->empty()) {
    query.kind = GramQuery::Kind::kGrams;
    query.grams = std::move(*grams);
  }
  return query;
}

}  // namespace

std::string FoldCase(std::string_view text) {
  std::string folded;
  folded.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c >= 'A' && c <= 'Z') {
      folded.push_back(static_cast<char>(c - 'A' + 'a'));
      ++at;
    } else if (text.substr(at, kKelvinSign.size()) == kKelvinSign) {
      folded.push_back('k');
      at += kKelvinSign.size();
    } else if (text.substr(at, kLongS.size()) == kLongS) {
      folded.push_back('s');
      at += kLongS.size();
    } else {
      folded.push_back(c);
      ++at;
    }
  }
  return folded;
}

Gram PackGram(std::string_view bytes) {
  Gram gram = 0;
  for (char c : bytes) gram = (gram << 8) | static_cast<unsigned char>(c);
  return gram;
}

std::string UnpackGram(Gram gram, int n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  for (int i = n - 1; i >= 0; --i) {
    bytes[static_cast<size_t>(i)] = static_cast<char>(gram & 0xFF);
    gram >>= 8;
  }
  return bytes;
}

void GramsOfValue(std::string_view value, const GramScheme& scheme, std::vector<Gram>* grams) {
  grams->clear();
  if (value.size() < static_cast<size_t>(scheme.n)) return;
  if (scheme.case_folding) {
    AppendWindows(FoldCase(value), scheme.n, false, grams);
  } else {
    AppendWindows(value, scheme.n, false, grams);
  }
  SortDistinct(grams);
}

std::optional<std::vector<Gram>> RequiredGramsOfRuns(const std::vector<std::string>& runs,
                                                     bool case_insensitive,
                                                     const GramScheme& scheme) {
  if (case_insensitive && !scheme.case_folding) return std::nullopt;
  std::vector<Gram> grams;
  for (const std::string& run : runs) {
    if (scheme.case_folding) {
      // Under ILIKE a window holding a non-ASCII byte may match differently cased bytes.
      AppendWindows(FoldCase(run), scheme.n, case_insensitive, &grams);
    } else {
      AppendWindows(run, scheme.n, false, &grams);
    }
  }
  SortDistinct(&grams);
  return grams;
}

GramQuery GramQueryOf(const expr::Node& leaf, const GramScheme& scheme) {
  if (leaf.kind() == expr::NodeKind::kLike) {
    const auto& like = leaf.As<expr::Like>();
    if (like.pattern_column() != nullptr) return {};
    return FromRuns(expr::LikeLiteralRuns(like.pattern(), like.escape()), like.case_insensitive(),
                    scheme);
  }
  if (leaf.kind() != expr::NodeKind::kCall) return {};
  const auto& call = leaf.As<expr::Call>();
  const std::string_view name = call.function().name;
  if (name != "contains" && name != "starts_with") return {};
  const auto& arguments = call.arguments();
  if (arguments.size() != 2 || arguments[0]->kind() != expr::NodeKind::kColumn ||
      arguments[1]->kind() != expr::NodeKind::kLiteral) {
    return {};
  }
  const std::optional<std::string> text = LiteralText(*arguments[1]);
  if (!text) return {};
  return FromRuns({*text}, false, scheme);
}

}  // namespace tessera::index::scalar
