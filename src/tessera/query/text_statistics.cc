#include "tessera/query/text_statistics.h"

namespace tessera::query {

TextStatistics CollectStatistics(const TextSources& sources) {
  TextStatistics statistics;
  for (const TextSource& source : sources.sources) {
    statistics.document_count += source.live_count;
    statistics.total_length += source.live_length;
  }
  return statistics;
}

arrow::Result<const TermInfo*> TermTable::Find(const std::string& term) {
  auto it = terms_.find(term);
  if (it != terms_.end()) return &it->second;
  TermInfo info;
  for (const TextSource& source : sources_.sources) {
    ARROW_ASSIGN_OR_RAISE(auto postings, source.reader->FindTerm(term));
    if (postings) {
      if (source.live.empty()) {
        info.document_frequency += postings->document_frequency;
      } else {
        ARROW_ASSIGN_OR_RAISE(auto cursor, source.reader->OpenPostings(*postings));
        for (uint32_t doc = cursor->doc(); doc != index::PostingCursor::kEnd; doc = cursor->doc()) {
          if (source.live[doc] != 0) ++info.document_frequency;
          ARROW_RETURN_NOT_OK(cursor->Next());
        }
      }
    }
    info.postings.push_back(postings);
  }
  return &terms_.emplace(term, std::move(info)).first->second;
}

}  // namespace tessera::query
