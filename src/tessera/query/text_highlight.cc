#include "tessera/query/text_highlight.h"

#include <arrow/builder.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tessera/status.h"

namespace tessera::query {
namespace {

using index::text::Analyzer;
using index::text::Token;

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Lets the term map be probed with a token's string_view without building a string per token.
struct TermHash {
  using is_transparent = void;
  size_t operator()(std::string_view term) const { return std::hash<std::string_view>{}(term); }
};
using TermIds = std::unordered_map<std::string, int, TermHash, std::equal_to<>>;

// The length of the well-formed UTF-8 sequence at text[at] (1..4), or 0 when it is not one.
size_t SequenceLength(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    const unsigned char next = byte(at + i);
    const unsigned char min = i == 1 ? low : 0x80;
    const unsigned char max = i == 1 ? high : 0xBF;
    if (next < min || next > max) return 0;
  }
  return length;
}

// Appends `text`, each byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD.
void AppendValidUtf8(std::string_view text, std::string* out) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t length = SequenceLength(text, at);
    if (length == 0) {
      out->append(kReplacement);
      ++at;
    } else {
      out->append(text.substr(at, length));
      at += length;
    }
  }
}

// The largest character boundary at or before `position` (a continuation byte is never one;
// at most three steps back, so invalid text cannot make it walk further).
size_t FloorToCharacter(std::string_view text, size_t position) {
  if (position >= text.size()) return text.size();
  for (int step = 0; step < 3 && position > 0; ++step) {
    if ((static_cast<unsigned char>(text[position]) & 0xC0) != 0x80) break;
    --position;
  }
  return position;
}

// The best window of one value: its matching tokens span [span_begin, span_end).
struct Window {
  int distinct = 0;
  int64_t occurrences = 0;
  uint64_t span_begin = 0;
  uint64_t span_end = 0;
  // span_end cuts a matching token longer than the passage.
  bool cuts_token = false;

  bool matched() const { return distinct > 0; }
  bool BetterThan(const Window& other) const {
    if (distinct != other.distinct) return distinct > other.distinct;
    return occurrences > other.occurrences;
  }
};

class PassageMarker {
 public:
  PassageMarker(Analyzer& analyzer, const TermIds& term_ids, const TextSearchOptions& options)
      : analyzer_(analyzer),
        term_ids_(term_ids),
        length_(static_cast<uint64_t>(options.highlight_length)),
        open_(options.highlight_open),
        close_(options.highlight_close) {}

  // Slides a window of length_ bytes over the matching tokens; for each token, the window that
  // ends with it and reaches back as far as it can holds the most of anything a window ending
  // there can, so the best of those is the best window. Strictly better only, so ties keep the
  // earliest.
  Window Choose(std::string_view text) {
    struct Match {
      uint64_t begin;
      uint64_t end;  // cut to begin + length_
      int term;
      uint64_t sequence;
      bool cut;  // longer than length_
    };
    std::deque<Match> window;
    std::deque<Match> largest_ends;  // decreasing ends: the window's largest end is in front
    std::vector<int> counts(term_ids_.size(), 0);
    int distinct = 0;
    uint64_t sequence = 0;
    Window best;
    analyzer_.Analyze(text, 0, [&](const Token& token) {
      const auto found = term_ids_.find(token.term);
      if (found == term_ids_.end()) return;
      const uint64_t begin = token.begin;
      const uint64_t end = std::min<uint64_t>(token.end, begin + length_);
      while (!window.empty() && end - window.front().begin > length_) {
        const Match& leaving = window.front();
        if (--counts[leaving.term] == 0) --distinct;
        if (largest_ends.front().sequence == leaving.sequence) largest_ends.pop_front();
        window.pop_front();
      }
      const Match match{begin, end, found->second, sequence++, end < token.end};
      window.push_back(match);
      while (!largest_ends.empty() && largest_ends.back().end <= match.end) {
        largest_ends.pop_back();
      }
      largest_ends.push_back(match);
      if (counts[match.term]++ == 0) ++distinct;
      const Window candidate{distinct, static_cast<int64_t>(window.size()), window.front().begin,
                             largest_ends.front().end, largest_ends.front().cut};
      if (candidate.BetterThan(best)) best = candidate;
    });
    if (best.cuts_token) best.span_end = FloorToCharacter(text, best.span_end);
    return best;
  }

  // The passage of a matched value.
  void Render(std::string_view text, const Window& window, std::string* out) {
    const uint64_t size = text.size();
    const uint64_t span = window.span_end - window.span_begin;
    const uint64_t slack = length_ > span ? length_ - span : 0;
    const uint64_t room_before = window.span_begin;
    const uint64_t room_after = size - window.span_end;
    uint64_t before = std::min(room_before, slack / 2);
    const uint64_t after = std::min(room_after, slack - before);
    before = std::min(room_before, slack - after);
    const uint64_t cut_begin = window.span_begin - before;
    const uint64_t cut_end = window.span_end + after;

    // Second pass: the token boundaries near the cuts and the matches inside them.
    uint64_t first_begin = window.span_begin;
    uint64_t last_end = window.span_end;
    std::vector<std::pair<uint64_t, uint64_t>> marks;
    analyzer_.Analyze(text, 0, [&](const Token& token) {
      const uint64_t begin = token.begin;
      const uint64_t end = token.end;
      if (begin >= cut_begin) first_begin = std::min(first_begin, begin);
      if (end <= cut_end) last_end = std::max(last_end, end);
      if (begin >= cut_begin && begin < cut_end && term_ids_.contains(token.term)) {
        marks.emplace_back(begin, end);
      }
    });
    const uint64_t passage_begin = cut_begin == 0 ? 0 : first_begin;
    const uint64_t passage_end = cut_end == size ? size : last_end;
    std::sort(marks.begin(), marks.end());

    if (passage_begin > 0) out->append(kEllipsis);
    uint64_t written = passage_begin;
    std::optional<std::pair<uint64_t, uint64_t>> open_mark;
    const auto flush = [&] {
      if (!open_mark) return;
      AppendValidUtf8(text.substr(written, open_mark->first - written), out);
      out->append(open_);
      AppendValidUtf8(text.substr(open_mark->first, open_mark->second - open_mark->first), out);
      out->append(close_);
      written = open_mark->second;
      open_mark.reset();
    };
    for (const auto& [begin, token_end] : marks) {
      const bool cut = window.cuts_token && begin == window.span_begin;
      if (begin < passage_begin || (token_end > passage_end && !cut)) continue;
      const uint64_t end = std::min(token_end, passage_end);
      if (begin < written) continue;  // inside a mark already written
      if (open_mark && begin <= open_mark->second) {
        open_mark->second = std::max(open_mark->second, end);
        continue;
      }
      flush();
      open_mark = std::make_pair(begin, end);
    }
    flush();
    AppendValidUtf8(text.substr(written, passage_end - written), out);
    if (passage_end < size) out->append(kEllipsis);
  }

  // The passage of a value without a match: its first bytes.
  void RenderStart(std::string_view text, std::string* out) const {
    const size_t end = FloorToCharacter(text, std::min<uint64_t>(text.size(), length_));
    AppendValidUtf8(text.substr(0, end), out);
    if (end < text.size()) out->append(kEllipsis);
  }

 private:
  Analyzer& analyzer_;
  const TermIds& term_ids_;
  uint64_t length_;
  std::string_view open_;
  std::string_view close_;
};

bool IsStringType(arrow::Type::type id) {
  return id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING;
}

std::optional<std::string_view> StringAt(const arrow::Array& strings, int64_t row) {
  if (strings.IsNull(row)) return std::nullopt;
  if (strings.type_id() == arrow::Type::STRING) {
    return static_cast<const arrow::StringArray&>(strings).GetView(row);
  }
  return static_cast<const arrow::LargeStringArray&>(strings).GetView(row);
}

// The elements [begin, end) of a list value in `elements`.
struct ElementRange {
  const arrow::Array* elements;
  int64_t begin;
  int64_t end;
};

std::optional<ElementRange> ListValueAt(const arrow::Array& values, int64_t row) {
  if (values.IsNull(row)) return std::nullopt;
  if (values.type_id() == arrow::Type::LIST) {
    const auto& list = static_cast<const arrow::ListArray&>(values);
    return ElementRange{list.values().get(), list.value_offset(row),
                        list.value_offset(row) + list.value_length(row)};
  }
  const auto& list = static_cast<const arrow::LargeListArray&>(values);
  return ElementRange{list.values().get(), list.value_offset(row),
                      list.value_offset(row) + list.value_length(row)};
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Array>> HighlightColumn(
    const arrow::Array& values, const index::text::AnalyzerOptions& analyzer_options,
    const std::vector<std::string>& query_terms, const TextSearchOptions& options) {
  if (options.highlight_length < 1) {
    return InvalidArgument("highlight_length must be at least 1 byte, got ",
                           options.highlight_length);
  }
  const auto id = values.type_id();
  const bool is_list = id == arrow::Type::LIST || id == arrow::Type::LARGE_LIST;
  if (!IsStringType(id) && !(is_list && IsStringType(values.type()->field(0)->type()->id()))) {
    return InvalidArgument("cannot highlight a column of type ", values.type()->ToString(),
                           ": highlights need string, large_string or a list of strings");
  }
  ARROW_ASSIGN_OR_RAISE(auto analyzer, Analyzer::Make(analyzer_options));
  TermIds term_ids;
  for (const auto& term : query_terms) {
    term_ids.emplace(term, static_cast<int>(term_ids.size()));
  }
  PassageMarker highlighter(*analyzer, term_ids, options);

  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(values.length()));
  std::string passage;
  for (int64_t row = 0; row < values.length(); ++row) {
    passage.clear();
    if (!is_list) {
      const auto text = StringAt(values, row);
      if (!text) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      const Window window = highlighter.Choose(*text);
      if (window.matched()) {
        highlighter.Render(*text, window, &passage);
      } else {
        highlighter.RenderStart(*text, &passage);
      }
      ARROW_RETURN_NOT_OK(builder.Append(passage));
      continue;
    }
    const auto range = ListValueAt(values, row);
    std::optional<std::string_view> best_text;
    std::optional<std::string_view> first_text;
    Window best;
    if (range) {
      for (int64_t element = range->begin; element < range->end; ++element) {
        const auto text = StringAt(*range->elements, element);
        if (!text) continue;
        if (!first_text) first_text = text;
        const Window window = highlighter.Choose(*text);
        if (window.BetterThan(best)) {
          best = window;
          best_text = text;
        }
      }
    }
    if (best_text) {
      highlighter.Render(*best_text, best, &passage);
    } else if (first_text) {
      highlighter.RenderStart(*first_text, &passage);
    } else {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    ARROW_RETURN_NOT_OK(builder.Append(passage));
  }
  return builder.Finish();
}

}  // namespace tessera::query
