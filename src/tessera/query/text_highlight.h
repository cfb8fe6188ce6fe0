// Highlights: the best-matching passage of each value of a text column, the query's terms
// marked, for the `_highlight` column of a full-text search (text_search.h).
//
// A value is re-analyzed with the column's analyzer (index/text/analyzer.h, whose tokens carry
// byte offsets into the value); a token matches when its analyzed term is one of the query's
// terms. The passage:
//  - is the window of at most highlight_length bytes of the value holding the most distinct
//    query terms, then the most matching tokens, the earliest on ties;
//  - gets the rest of the highlight_length bytes as context, half before and half after (what
//    one side cannot use goes to the other), and is then narrowed to whole tokens at each end
//    where it cuts the value, so it never cuts a word or a UTF-8 character (a single matching
//    token longer than highlight_length is the exception: it is cut on a UTF-8 boundary);
//  - has each matching token's bytes [begin, end) wrapped in highlight_open / highlight_close
//    (overlapping or touching matches, as n-grams give, share one pair of tags), and "…" (U+2026)
//    before and after it where it cuts the value.
// A value with no matching token gives its first highlight_length bytes (cut on a UTF-8
// boundary, "…" appended when cut), unmarked. A null value gives null. A list value highlights
// its best element (most distinct terms, then most matches, the first on ties); a null or empty
// list gives null, a list without a match its first non-null element's first bytes.
//
// The tags are inserted verbatim and the text is copied as it is, not HTML-escaped: the caller
// that renders the passage as HTML escapes the value's text itself (the tags may be anything,
// e.g. ANSI colours for a terminal). Bytes of the value that are not UTF-8 are replaced by U+FFFD
// so the column is always valid UTF-8 (sizes then count the original bytes).
//
// Memory is bounded by the window, not by the value: a value is analyzed twice, streaming — once
// to choose the window (keeping only the matching tokens inside a sliding window of
// highlight_length bytes), once to mark it (keeping only the tokens inside it).
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/index/text/analyzer.h"
#include "tessera/query/text_search.h"

namespace tessera::query {

// `values`: string, large_string, or a list / large_list of either. `query_terms`: the analyzed
// terms of the query (as `analyzer` spells them; repeats are harmless). Uses highlight_length,
// highlight_open and highlight_close of `options`. Returns a utf8 array of values.length()
// passages. InvalidArgument for highlight_length < 1 or a column of another type; analyzer
// errors as Analyzer::Make reports them.
arrow::Result<std::shared_ptr<arrow::Array>> HighlightColumn(
    const arrow::Array& values, const index::text::AnalyzerOptions& analyzer,
    const std::vector<std::string>& query_terms, const TextSearchOptions& options);

}  // namespace tessera::query
