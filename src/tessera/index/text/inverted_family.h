// INVERTED: the full-text index family (docs/indexes.md, "INVERTED"). A segment maps each
// distinct term of its rows' analyzed text (index/text/analyzer.h) to the documents holding it,
// with term frequencies and, by default, positions, in blocks with block-max data for WAND;
// its reader is a TextSegmentReader (index/text_segment.h), which the query layer scores with
// BM25 (query/text_search.h). It answers no scalar predicate and no vector search.
//
// Column types: string, large_string, and list / large_list of string / large_string (each
// element a field value; elements continue one position sequence with a gap of
// kListElementPositionGap positions; null elements are skipped, a null row is an empty
// document). Parameters: the analyzer's (AnalyzerParamKeys), `with_position` (true by default:
// positions for phrase queries) and `memory_limit` (bytes a build may hold for postings before
// it spills; default 64 MiB, at least 1 MiB). Segments record the analyzer parameters and
// with_position in their details; a merge requires them equal.
//
// Build reads the column of its fragments in ascending fragment id order (documents follow row
// addresses) with one Analyzer, through InvertedSegmentWriter (bounded memory, spill runs).
// Merge streams the inputs' dictionaries term by term and their postings through cursors,
// renumbering documents into the merged row-address order.
#pragma once

#include <memory>
#include <string_view>

#include "tessera/index/index_family.h"

namespace tessera::index::text {

inline constexpr std::string_view kInvertedFamilyName = "INVERTED";
inline constexpr std::string_view kParamWithPosition = "with_position";
inline constexpr std::string_view kParamMemoryLimit = "memory_limit";
inline constexpr int64_t kDefaultMemoryLimit = int64_t{64} << 20;
inline constexpr int64_t kMinMemoryLimit = int64_t{1} << 20;
inline constexpr int64_t kMaxMemoryLimit = int64_t{1} << 40;

// SegmentMeta.details of an INVERTED segment besides the analyzer parameters and
// with_position.
inline constexpr std::string_view kDetailNumTerms = "num_terms";
inline constexpr std::string_view kDetailNumPostings = "num_postings";
inline constexpr std::string_view kDetailTotalLength = "total_length";
// The build's peak accounted posting bytes and its spill runs (0 for a merge).
inline constexpr std::string_view kDetailPeakMemory = "build_peak_memory_bytes";
inline constexpr std::string_view kDetailSpillRuns = "build_spill_runs";

class InvertedFamily final : public IndexFamily {
 public:
  std::string_view name() const override;
  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override;
  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override;
  // Inputs must share the analyzer parameters and with_position (InvalidArgument otherwise).
  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override;
  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override;
  std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const override;
  // Checks the segment's analyzer and with_position against the definition's, then reads and
  // checks every posting (InvertedSegmentReader::CheckAll).
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
  // Text search reads it (query/text_search.h), never a filter.
  bool answers_predicates() const override { return false; }
};

std::unique_ptr<IndexFamily> MakeInvertedFamily();

}  // namespace tessera::index::text
