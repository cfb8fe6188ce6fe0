#include "tessera/index/text/tokenizers.h"

#include <unicode/ubrk.h>
#include <unicode/utext.h>
#include <unicode/utypes.h>

#include <array>
#include <climits>

#include "tessera/index/text/character_classes.h"
#include "tessera/index/text/icu_library.h"
#include "tessera/index/text/utf8.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

// Calls `on_run(begin, end)` for every maximal run of characters of text[from, text.size()) for
// which `inside(c)` holds.
template <typename Inside, typename OnRun>
void ForEachRun(std::string_view text, size_t from, Inside inside, OnRun on_run) {
  size_t offset = from;
  while (offset < text.size()) {
    // Skip separators.
    size_t begin = offset;
    bool found = false;
    while (offset < text.size()) {
      begin = offset;
      if (inside(DecodeNext(text, &offset))) {
        found = true;
        break;
      }
    }
    if (!found) return;
    size_t end = offset;
    while (offset < text.size()) {
      const size_t here = offset;
      if (!inside(DecodeNext(text, &offset))) {
        end = here;
        break;
      }
      end = offset;
    }
    on_run(begin, end);
  }
}

// A lambda rather than the function, so that the run loops inline it.
constexpr auto IsWord = [](UChar32 c) { return IsWordCharacter(c); };

class SimpleTokenizer final : public Tokenizer {
 public:
  uint32_t Tokenize(std::string_view text, const TokenSink& sink) override {
    uint32_t ordinal = 0;
    ForEachRun(text, 0, IsWord, [&](size_t begin, size_t end) { sink(begin, end, ordinal++); });
    return ordinal;
  }
};

class WhitespaceTokenizer final : public Tokenizer {
 public:
  uint32_t Tokenize(std::string_view text, const TokenSink& sink) override {
    uint32_t ordinal = 0;
    ForEachRun(
        text, 0, [](UChar32 c) { return !IsTokenSeparator(c); },
        [&](size_t begin, size_t end) { sink(begin, end, ordinal++); });
    return ordinal;
  }
};

class RawTokenizer final : public Tokenizer {
 public:
  uint32_t Tokenize(std::string_view text, const TokenSink& sink) override {
    if (text.empty()) return 0;
    sink(0, text.size(), 0);
    return 1;
  }
};

class NgramTokenizer final : public Tokenizer {
 public:
  NgramTokenizer(int min_length, int max_length)
      : min_length_(static_cast<size_t>(min_length)),
        max_length_(static_cast<size_t>(max_length)) {}

  uint32_t Tokenize(std::string_view text, const TokenSink& sink) override {
    uint32_t ordinal = 0;
    ForEachRun(text, 0, IsWord, [&](size_t begin, size_t end) {
      EmitGrams(text.substr(0, end), begin, ordinal, sink);
      ++ordinal;
    });
    return ordinal;
  }

 private:
  static constexpr size_t kRing = 32;  // > the longest n-gram (16) + 1, a power of two

  // The n-grams of the word text[begin, text.size()). `starts_` holds the offsets of the
  // characters not yet emitted from, plus the offset of the next character, as a ring.
  void EmitGrams(std::string_view text, size_t begin, uint32_t ordinal, const TokenSink& sink) {
    size_t head = 0;   // index of the first pending start
    size_t count = 0;  // boundaries held: pending starts + the current end
    starts_[0] = begin;
    count = 1;
    size_t offset = begin;
    // Emits the n-grams that start at the oldest pending character, given `count` boundaries.
    auto emit_oldest = [&]() {
      const size_t start = starts_[head % kRing];
      for (size_t length = min_length_; length <= max_length_ && length < count; ++length) {
        sink(start, starts_[(head + length) % kRing], ordinal);
      }
      ++head;
      --count;
    };
    while (offset < text.size()) {
      DecodeNext(text, &offset);
      starts_[(head + count) % kRing] = offset;
      ++count;
      if (count > max_length_) emit_oldest();
    }
    while (count > 1) emit_oldest();
  }

  size_t min_length_;
  size_t max_length_;
  std::array<size_t, kRing> starts_{};
};

class IcuTokenizer final : public Tokenizer {
 public:
  IcuTokenizer(const IcuLibrary& icu, UBreakIterator* words) : icu_(icu), words_(words) {}
  ~IcuTokenizer() override { icu_.break_close(words_); }
  IcuTokenizer(const IcuTokenizer&) = delete;
  IcuTokenizer& operator=(const IcuTokenizer&) = delete;

  uint32_t Tokenize(std::string_view text, const TokenSink& sink) override {
    if (text.empty()) return 0;
    // The break iterator's offsets are 32-bit: a value beyond 2 GiB is segmented up to there.
    if (text.size() > static_cast<size_t>(INT32_MAX)) text = text.substr(0, INT32_MAX);
    UErrorCode status = U_ZERO_ERROR;
    UText utext = UTEXT_INITIALIZER;
    // A UText over the UTF-8 bytes, no copy: ICU's indices are byte offsets into `text`, and
    // it reads an ill-formed sequence as U+FFFD.
    icu_.text_open_utf8(&utext, text.data(), static_cast<int64_t>(text.size()), &status);
    if (U_FAILURE(status)) return 0;
    icu_.break_set_text(words_, &utext, &status);
    uint32_t ordinal = 0;
    if (U_SUCCESS(status)) {
      int32_t begin = icu_.break_first(words_);
      for (int32_t end = icu_.break_next(words_); end != UBRK_DONE;
           begin = end, end = icu_.break_next(words_)) {
        const int32_t rule = icu_.break_rule_status(words_);
        if (rule < UBRK_WORD_NONE_LIMIT || rule >= UBRK_WORD_IDEO_LIMIT) continue;
        // A word never holds U+FFFD (an ill-formed sequence): split around any.
        ForEachRun(
            text.substr(0, static_cast<size_t>(end)), static_cast<size_t>(begin),
            [](UChar32 c) { return c != kInvalidCodePoint && c != kReplacementCharacter; },
            [&](size_t run_begin, size_t run_end) { sink(run_begin, run_end, ordinal++); });
      }
    }
    // Forget the text: the iterator must not keep pointing at memory the caller owns.
    UErrorCode reset_status = U_ZERO_ERROR;
    icu_.text_open_utf8(&utext, "", 0, &reset_status);
    icu_.break_set_text(words_, &utext, &reset_status);
    icu_.text_close(&utext);
    return ordinal;
  }

 private:
  const IcuLibrary& icu_;
  UBreakIterator* words_;
};

}  // namespace

arrow::Result<std::unique_ptr<Tokenizer>> Tokenizer::Make(const AnalyzerOptions& options) {
  // Character classes and word boundaries are ICU's: fail here, with the reason, if it is not
  // there (icu_library.h).
  ARROW_ASSIGN_OR_RAISE(const IcuLibrary* icu, LoadIcu());
  switch (options.tokenizer) {
    case TokenizerKind::kSimple:
      return std::make_unique<SimpleTokenizer>();
    case TokenizerKind::kWhitespace:
      return std::make_unique<WhitespaceTokenizer>();
    case TokenizerKind::kRaw:
      return std::make_unique<RawTokenizer>();
    case TokenizerKind::kNgram:
      if (options.ngram_min < 1 || options.ngram_max > 16 ||
          options.ngram_min > options.ngram_max) {
        return InvalidArgument(
            "n-gram lengths must satisfy 1 <= ngram_min <= ngram_max <= 16, got ",
            options.ngram_min, "..", options.ngram_max);
      }
      return std::make_unique<NgramTokenizer>(options.ngram_min, options.ngram_max);
    case TokenizerKind::kIcu: {
      // The root locale's word rules ("": root), as for every language.
      UErrorCode status = U_ZERO_ERROR;
      UBreakIterator* words = icu->break_open(UBRK_WORD, "", nullptr, 0, &status);
      if (U_FAILURE(status) || words == nullptr) {
        if (words != nullptr) icu->break_close(words);
        return Error(ErrorKind::kInternal,
                     "cannot create ICU's word break iterator: ", icu->error_name(status));
      }
      return std::make_unique<IcuTokenizer>(*icu, words);
    }
  }
  return InvalidArgument("unknown tokenizer kind ", static_cast<int>(options.tokenizer));
}

}  // namespace tessera::index::text
