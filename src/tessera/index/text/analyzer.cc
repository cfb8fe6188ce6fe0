// The analysis pipeline of analyzer.h: a tokenizer (tokenizers.h), the length limit, the
// character filters (term_normalizer.h), stop words (stop_words.h) and the stemmer
// (stemmer.h), with every buffer owned by the Analyzer and reused from token to token.
#include "tessera/index/text/analyzer.h"

#include <string>

#include "tessera/index/text/analyzer_options.h"
#include "tessera/index/text/stemmer.h"
#include "tessera/index/text/stop_word_set.h"
#include "tessera/index/text/stop_words.h"
#include "tessera/index/text/term_cache.h"
#include "tessera/index/text/term_normalizer.h"
#include "tessera/index/text/tokenizers.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

bool IsAsciiNumber(std::string_view term) {
  for (char c : term) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

class PipelineAnalyzer final : public Analyzer {
 public:
  PipelineAnalyzer(AnalyzerOptions options, std::unique_ptr<Tokenizer> tokenizer,
                   std::unique_ptr<Stemmer> stemmer)
      : Analyzer(std::move(options)),
        tokenizer_(std::move(tokenizer)),
        normalizer_(options_.lower_case, options_.ascii_folding),
        stemmer_(std::move(stemmer)),
        word_steps_(stemmer_ != nullptr) {}

  // The list's words spelled as the pipeline spells terms, so "für" is still a German stop
  // word when ascii_folding turns the text's "für" into "fur".
  void SetStopWords(const std::vector<std::string_view>& words) {
    std::vector<std::string> spelled;
    for (std::string_view word : words) spelled.emplace_back(normalizer_.Normalize(word, &term_));
    stop_words_ = StopWordSet(spelled);
    word_steps_ = word_steps_ || !stop_words_.empty();
  }

  uint32_t Analyze(std::string_view text, uint32_t first_position,
                   const std::function<void(const Token&)>& emit) override {
    const size_t max_length = static_cast<size_t>(options_.max_token_length);
    const uint32_t count =
        tokenizer_->Tokenize(text, [&](size_t begin, size_t end, uint32_t ordinal) {
          if (end - begin > max_length) return;
          std::string_view term = normalizer_.Normalize(text.substr(begin, end - begin), &term_);
          if (word_steps_ && !ApplyWordSteps(&term)) return;
          // A token of combining marks alone folds to nothing: no term to index.
          if (term.empty()) return;
          emit(Token{term, first_position + ordinal, static_cast<uint32_t>(begin),
                     static_cast<uint32_t>(end)});
        });
    return first_position + count;
  }

  // Stop-word removal and stemming, through the cache; false for a stop word.
  bool ApplyWordSteps(std::string_view* term) {
    // Numbers are neither stop words nor stemmed; and most are distinct, which would only churn
    // the cache.
    if (IsAsciiNumber(*term)) return true;
    if (stop_words_.Contains(*term)) return false;
    if (stemmer_ == nullptr) return true;
    std::string_view stem;
    if (!cache_.Find(*term, &stem)) {
      stem = stemmer_->Stem(*term);
      cache_.Insert(*term, stem);
    }
    *term = stem;
    return true;
  }

  std::string NormalizeWord(std::string_view word) override {
    return std::string(normalizer_.Normalize(word, &term_));
  }

 private:
  std::unique_ptr<Tokenizer> tokenizer_;
  TermNormalizer normalizer_;
  std::unique_ptr<Stemmer> stemmer_;  // null without stemming
  StopWordSet stop_words_;            // empty without stop-word removal
  bool word_steps_;                   // stop words or stemming apply
  TermCache cache_;                   // the stems of recent terms
  std::string term_;                  // the current term, when normalizing rewrote it
};

}  // namespace

arrow::Result<std::unique_ptr<Analyzer>> Analyzer::Make(const AnalyzerOptions& options) {
  if (options.max_token_length < 1 || options.max_token_length > 65535) {
    return InvalidArgument("max_token_length must be in [1, 65535], got ",
                           options.max_token_length);
  }
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Make(options));
  // Stop words and stems are of words: raw values and n-grams keep their spelling.
  const bool words = ProducesWords(options.tokenizer);
  std::unique_ptr<Stemmer> stemmer;
  if (options.stem && words) {
    ARROW_ASSIGN_OR_RAISE(stemmer, Stemmer::Make(options.language));
  }
  std::vector<std::string_view> stop_words;
  if (options.remove_stop_words && words) {
    if (!HasStopWordList(options.language)) {
      return InvalidArgument("no stop-word list for language '", options.language,
                             "'; set remove_stop_words=false or use one of the languages with a "
                             "list");
    }
    stop_words = StopWordList(options.language);
  }
  auto analyzer =
      std::make_unique<PipelineAnalyzer>(options, std::move(tokenizer), std::move(stemmer));
  analyzer->SetStopWords(stop_words);
  return analyzer;
}

}  // namespace tessera::index::text
