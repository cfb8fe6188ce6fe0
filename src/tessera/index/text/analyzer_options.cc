#include "tessera/index/text/analyzer_options.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "tessera/index/text/stemmer.h"
#include "tessera/index/text/stop_words.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr std::string_view kTrueText = "true";
constexpr std::string_view kFalseText = "false";
constexpr int kDefaultNgramLength = 3;

arrow::Result<bool> BooleanParam(const Params& params, std::string_view family,
                                 std::string_view key, bool default_value) {
  ARROW_ASSIGN_OR_RAISE(std::string value,
                        ChoiceParam(params, family, key, default_value ? kTrueText : kFalseText,
                                    {kTrueText, kFalseText}));
  return value == kTrueText;
}

std::string Join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string LowerAscii(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace

std::string_view TokenizerName(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::kSimple:
      return "simple";
    case TokenizerKind::kWhitespace:
      return "whitespace";
    case TokenizerKind::kRaw:
      return "raw";
    case TokenizerKind::kNgram:
      return "ngram";
    case TokenizerKind::kIcu:
      return "icu";
  }
  return "simple";
}

std::optional<TokenizerKind> TokenizerFromName(std::string_view name) {
  for (TokenizerKind kind : {TokenizerKind::kSimple, TokenizerKind::kWhitespace,
                             TokenizerKind::kRaw, TokenizerKind::kNgram, TokenizerKind::kIcu}) {
    if (TokenizerName(kind) == name) return kind;
  }
  return std::nullopt;
}

bool ProducesWords(TokenizerKind kind) {
  return kind == TokenizerKind::kSimple || kind == TokenizerKind::kWhitespace ||
         kind == TokenizerKind::kIcu;
}

const std::vector<std::string_view>& AnalyzerParamKeys() {
  static const std::vector<std::string_view> keys = {
      "tokenizer", "ngram_min", "ngram_max",         "lower_case",      "ascii_folding",
      "stem",      "language",  "remove_stop_words", "max_token_length"};
  return keys;
}

arrow::Result<AnalyzerOptions> ParseAnalyzerOptions(const Params& params, std::string_view family) {
  AnalyzerOptions options;
  ARROW_ASSIGN_OR_RAISE(std::string tokenizer,
                        ChoiceParam(params, family, "tokenizer", "simple",
                                    {"simple", "whitespace", "raw", "ngram", "icu"}));
  options.tokenizer = *TokenizerFromName(tokenizer);

  ARROW_ASSIGN_OR_RAISE(int64_t ngram_min,
                        IntegerParam(params, family, "ngram_min", kDefaultNgramLength, 1, 16));
  // Only ngram_min given: the longest n-gram defaults to no shorter than it.
  ARROW_ASSIGN_OR_RAISE(int64_t ngram_max,
                        IntegerParam(params, family, "ngram_max",
                                     std::max<int64_t>(kDefaultNgramLength, ngram_min), 1, 16));
  if (ngram_min > ngram_max) {
    return InvalidArgument("index parameters ngram_min=", ngram_min, " and ngram_max=", ngram_max,
                           " of ", family, " must satisfy ngram_min <= ngram_max");
  }
  if (options.tokenizer == TokenizerKind::kNgram) {
    options.ngram_min = static_cast<int>(ngram_min);
    options.ngram_max = static_cast<int>(ngram_max);
  }

  ARROW_ASSIGN_OR_RAISE(options.lower_case, BooleanParam(params, family, "lower_case", true));
  ARROW_ASSIGN_OR_RAISE(options.ascii_folding, BooleanParam(params, family, "ascii_folding", true));
  ARROW_ASSIGN_OR_RAISE(int64_t max_token_length,
                        IntegerParam(params, family, "max_token_length", 40, 1, 65535));
  options.max_token_length = static_cast<int>(max_token_length);

  auto language = params.find("language");
  options.language = language == params.end() ? "english" : LowerAscii(language->second);
  // The languages listed are libstemmer's: a library that cannot be loaded is said so, not as
  // an empty list (analyzers that do not stem work without it).
  if (!HasStemmer(options.language) && !HasStopWordList(options.language)) {
    RETURN_NOT_OK(StemmersAvailable());
    return InvalidArgument("index parameter 'language' of ", family, " must be one of ",
                           Join(StemmerLanguages()), ", got '", options.language, "'");
  }

  const bool words = ProducesWords(options.tokenizer);
  for (std::string_view key : {std::string_view("stem"), std::string_view("remove_stop_words")}) {
    ARROW_ASSIGN_OR_RAISE(bool value, BooleanParam(params, family, key, words));
    if (value && !words) {
      return InvalidArgument("index parameter '", key, "' of ", family,
                             " applies to the simple, whitespace and icu tokenizers, whose "
                             "tokens are words, not to '",
                             tokenizer, "'; leave it out or set ", key, "=false");
    }
    (key == "stem" ? options.stem : options.remove_stop_words) = value;
  }
  if (options.stem && !HasStemmer(options.language)) {
    RETURN_NOT_OK(StemmersAvailable());
    return InvalidArgument("index parameter 'stem' of ", family,
                           ": there is no Snowball stemmer for '", options.language,
                           "'; set stem=false or language to one of ", Join(StemmerLanguages()));
  }
  if (options.remove_stop_words && !HasStopWordList(options.language)) {
    return InvalidArgument("index parameter 'remove_stop_words' of ", family,
                           ": there is no stop-word list for '", options.language,
                           "'; set remove_stop_words=false or language to one of ",
                           Join(StopWordLanguages()));
  }
  return options;
}

Params AnalyzerParams(const AnalyzerOptions& options) {
  auto boolean = [](bool value) { return std::string(value ? kTrueText : kFalseText); };
  return Params{{"tokenizer", std::string(TokenizerName(options.tokenizer))},
                {"ngram_min", std::to_string(options.ngram_min)},
                {"ngram_max", std::to_string(options.ngram_max)},
                {"lower_case", boolean(options.lower_case)},
                {"ascii_folding", boolean(options.ascii_folding)},
                {"stem", boolean(options.stem)},
                {"language", options.language},
                {"remove_stop_words", boolean(options.remove_stop_words)},
                {"max_token_length", std::to_string(options.max_token_length)}};
}

}  // namespace tessera::index::text
