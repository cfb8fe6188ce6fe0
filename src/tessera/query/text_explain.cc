#include "tessera/query/text_explain.h"

#include <sstream>

#include "tessera/query/nearest_explain.h"

namespace tessera::query {

void ExplainTextSearch(const TextSearchOptions& options, const format::Manifest& manifest,
                       const std::vector<TextColumnExplain>& columns, const Explain& prefilter,
                       Explain* explain) {
  (void)manifest;
  if (explain == nullptr) return;
  for (const TextColumnExplain& column : columns) {
    std::ostringstream header;
    header << "text search: " << TextQueryTypeName(options.type) << " over column '"
           << column.column << "', k " << options.k << ", BM25 k1 " << options.k1 << " b "
           << options.b << " (N " << column.statistics.document_count << ", average length "
           << column.statistics.average_length() << ")";
    explain->Add(header.str());
  }
  for (const auto& line : prefilter.lines) explain->Add(line);
  for (const TextColumnExplain& column : columns) {
    for (const auto& note : column.sources->notes) explain->Add(note);
    for (const TextSource& source : column.sources->sources) {
      std::ostringstream line;
      line << DescribeFragments(source.fragment_ids) << ": ";
      if (source.is_tail()) {
        line << "unindexed, analyzed on the fly";
      } else {
        line << "INVERTED index '" << source.index_name << "' segment "
             << ShortUuid(source.segment_uuid);
      }
      line << " (" << source.live_count << " documents)";
      explain->Add(line.str());
    }
    std::ostringstream scoring;
    scoring << "column '" << column.column << "': ";
    if (!column.has_terms) {
      scoring << "no query term left after analysis: no rows";
    } else {
      scoring << column.scoring << ", " << column.counters.scored << " of "
              << column.counters.postings << " postings scored";
    }
    explain->Add(scoring.str());
  }
}

}  // namespace tessera::query
