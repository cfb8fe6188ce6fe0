// NGRAM: a substring index over one string column. A segment maps each distinct n-gram of its
// rows' values (n consecutive bytes, case-folded by default: index/scalar/ngrams.h) to the
// ascending row addresses whose value holds it, plus the rows whose value is null, in
// posting-list files (index/scalar/posting_lists.h; a gram is a uint64 key). A segment indexes
// every physical row of its fragments, deleted or not; the planner applies deletions.
//
// Parameters: `n` (default 3, in [1, 8]: a gram fits in a 64-bit key, and longer grams narrow
// little more while multiplying the distinct grams) and `case_folding` (`true` by default, or
// `false`). Column types: string and large_string; anything else is Unsupported.
//
// Answers (ngram_segment_reader.h): contains(column, 'x'), starts_with(column, 'x') and
// column [I]LIKE 'pattern' with a literal pattern, always as supersets the planner rechecks:
// the rows holding every gram of every literal run of at least n bytes. A leaf with no such
// run (or, without case folding, any ILIKE) is not answered: the fragment is scanned.
//
// Build reads the column of its fragments once and holds, per distinct gram, the addresses of
// the rows holding it: 8 bytes per (row, distinct gram of the row) pair — a row of L bytes has
// at most L - n + 1 distinct grams — with up to as much again of vector slack, plus about 64
// bytes per distinct gram. A build over more rows than memory allows must be split into
// several segments (one per fragment subset) and merged. Merge streams the inputs' posting
// lists through a k-way merge (MergePostingLists), never reading the table, holding one gram's
// rows at a time.
#pragma once

#include <memory>
#include <string_view>

#include "tessera/index/index_family.h"
#include "tessera/index/scalar/ngrams.h"
#include "tessera/index/scalar/posting_lists.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kNgramFamilyName = "NGRAM";
inline constexpr std::string_view kNgramParamN = "n";
inline constexpr std::string_view kNgramParamCaseFolding = "case_folding";
inline constexpr int64_t kDefaultGramLength = 3;

// SegmentMeta.details of an NGRAM segment: the scheme it was built with (n, case_folding, as
// in the parameters) and its sizes.
inline constexpr std::string_view kNgramDetailNumGrams = "num_grams";
inline constexpr std::string_view kNgramDetailNumPostings = "num_postings";
inline constexpr std::string_view kNgramDetailNumNulls = "num_nulls";

// The posting-list files of a segment: keys.arrow, postings.arrow, nulls.arrow.
const PostingListFiles& NgramFiles();

// The scheme of normalized parameters or of a segment's details; InvalidArgument naming the
// family and the parameter when one is missing or out of range.
arrow::Result<GramScheme> GramSchemeOf(const Params& params);
arrow::Result<GramScheme> GramSchemeOfSegment(const format::SegmentMeta& segment);

class NgramFamily final : public IndexFamily {
 public:
  std::string_view name() const override;
  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override;
  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override;
  // Inputs must share n and case_folding (InvalidArgument naming both segments otherwise).
  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override;
  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override;
  std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const override;
  // Opens the segment and checks that its scheme (n, case_folding) is the definition's.
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
};

std::unique_ptr<IndexFamily> MakeNgramFamily();

}  // namespace tessera::index::scalar
