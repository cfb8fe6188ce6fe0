// PLACEHOLDER (replaced by the analyzer work): ASCII-only simple tokenizer with lower case, so
// that the inverted index and the query layer can be built against analyzer.h meanwhile.
#include "tessera/index/text/analyzer.h"

#include <cctype>

namespace tessera::index::text {
namespace {

class PlaceholderAnalyzer final : public Analyzer {
 public:
  explicit PlaceholderAnalyzer(AnalyzerOptions options) : Analyzer(std::move(options)) {}

  uint32_t Analyze(std::string_view text, uint32_t first_position,
                   const std::function<void(const Token&)>& emit) override {
    uint32_t position = first_position;
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && !std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
      size_t begin = i;
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
      if (begin == i) break;
      if (static_cast<int>(i - begin) <= options_.max_token_length) {
        term_ = NormalizeWord(text.substr(begin, i - begin));
        emit(Token{term_, position, static_cast<uint32_t>(begin), static_cast<uint32_t>(i)});
      }
      ++position;
    }
    return position;
  }

  std::string NormalizeWord(std::string_view word) override {
    std::string out(word);
    if (options_.lower_case) {
      for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  }

 private:
  std::string term_;
};

}  // namespace

const std::vector<std::string_view>& AnalyzerParamKeys() {
  static const std::vector<std::string_view> keys = {
      "tokenizer", "ngram_min", "ngram_max",         "lower_case",      "ascii_folding",
      "stem",      "language",  "remove_stop_words", "max_token_length"};
  return keys;
}

arrow::Result<AnalyzerOptions> ParseAnalyzerOptions(const Params& params, std::string_view family) {
  AnalyzerOptions options;
  ARROW_ASSIGN_OR_RAISE(options.max_token_length,
                        IntegerParam(params, family, "max_token_length", 40, 1, 65535));
  options.stem = false;
  options.remove_stop_words = false;
  options.ascii_folding = false;
  return options;
}

Params AnalyzerParams(const AnalyzerOptions& options) {
  return Params{{"max_token_length", std::to_string(options.max_token_length)}};
}

std::vector<std::string> StemmerLanguages() { return {}; }
std::vector<std::string> StopWordLanguages() { return {}; }

arrow::Result<std::unique_ptr<Analyzer>> Analyzer::Make(const AnalyzerOptions& options) {
  return std::make_unique<PlaceholderAnalyzer>(options);
}

}  // namespace tessera::index::text
