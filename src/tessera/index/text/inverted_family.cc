#include "tessera/index/text/inverted_family.h"

#include <arrow/api.h>

#include <algorithm>
#include <queue>
#include <string>
#include <vector>

#include "tessera/index/column_batches.h"
#include "tessera/index/merge_inputs.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/index/text/inverted_segment_reader.h"
#include "tessera/index/text/inverted_segment_writer.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr std::string_view kPositionsOn = "true";
constexpr std::string_view kPositionsOff = "false";

bool IsTextColumnType(const arrow::DataType& type) {
  return type.id() == arrow::Type::STRING || type.id() == arrow::Type::LARGE_STRING;
}

bool IsTextType(const arrow::DataType& type) {
  if (IsTextColumnType(type)) return true;
  if (type.id() == arrow::Type::LIST || type.id() == arrow::Type::LARGE_LIST) {
    return IsTextColumnType(*static_cast<const arrow::BaseListType&>(type).value_type());
  }
  return false;
}

arrow::Status CheckTextColumn(const arrow::Field& column) {
  if (IsTextType(*column.type())) return arrow::Status::OK();
  return Unsupported("an INVERTED index cannot be built on column '", column.name(), "' of type ",
                     column.type()->ToString(),
                     "; INVERTED indexes columns of type string, large_string, and lists "
                     "(list, large_list) of them");
}

arrow::Status RejectUnknown(const Params& params) {
  std::vector<std::string_view> known(AnalyzerParamKeys().begin(), AnalyzerParamKeys().end());
  known.push_back(kParamWithPosition);
  known.push_back(kParamMemoryLimit);
  for (const auto& entry : params) {
    if (std::find(known.begin(), known.end(), entry.first) != known.end()) continue;
    std::string names;
    for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    return InvalidArgument("unknown index parameter '", entry.first, "' for ", kInvertedFamilyName,
                           "; it takes: ", names);
  }
  return arrow::Status::OK();
}

struct Scheme {
  AnalyzerOptions analyzer;
  bool with_position = true;
  int64_t memory_limit = kDefaultMemoryLimit;
};

arrow::Result<Scheme> ParseInvertedScheme(const Params& params) {
  Scheme scheme;
  ARROW_ASSIGN_OR_RAISE(scheme.analyzer, ParseAnalyzerOptions(params, kInvertedFamilyName));
  ARROW_ASSIGN_OR_RAISE(std::string position,
                        ChoiceParam(params, kInvertedFamilyName, kParamWithPosition, kPositionsOn,
                                    {kPositionsOn, kPositionsOff}));
  scheme.with_position = position == kPositionsOn;
  ARROW_ASSIGN_OR_RAISE(scheme.memory_limit,
                        IntegerParam(params, kInvertedFamilyName, kParamMemoryLimit,
                                     kDefaultMemoryLimit, kMinMemoryLimit, kMaxMemoryLimit));
  return scheme;
}

// What a segment's postings depend on: the analyzer and with_position (not memory_limit).
Params ContentParams(const Scheme& scheme) {
  Params params = AnalyzerParams(scheme.analyzer);
  params[std::string(kParamWithPosition)] =
      std::string(scheme.with_position ? kPositionsOn : kPositionsOff);
  return params;
}

// The content parameters a segment recorded in its details.
Params ContentParamsOfSegment(const format::SegmentMeta& segment) {
  Params params;
  std::vector<std::string_view> keys(AnalyzerParamKeys().begin(), AnalyzerParamKeys().end());
  keys.push_back(kParamWithPosition);
  for (std::string_view key : keys) {
    auto found = segment.details().find(std::string(key));
    if (found != segment.details().end()) params[std::string(key)] = found->second;
  }
  return params;
}

void SetInvertedDetails(const Params& content, const InvertedFileStats& stats, uint64_t peak,
                        uint32_t runs, format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  for (const auto& [key, value] : content) details[key] = value;
  details[std::string(kDetailNumTerms)] = std::to_string(stats.num_terms);
  details[std::string(kDetailNumPostings)] = std::to_string(stats.num_postings);
  details[std::string(kDetailTotalLength)] = std::to_string(stats.total_length);
  details[std::string(kDetailPeakMemory)] = std::to_string(peak);
  details[std::string(kDetailSpillRuns)] = std::to_string(runs);
  meta->set_num_rows(stats.num_documents);
}

template <typename StringArray>
arrow::Status AddStrings(const StringArray& strings, InvertedSegmentWriter* writer) {
  for (int64_t i = 0; i < strings.length(); ++i) {
    writer->BeginDocument();
    if (strings.IsValid(i)) ARROW_RETURN_NOT_OK(writer->AddValue(strings.GetView(i)));
    writer->EndDocument();
  }
  return arrow::Status::OK();
}

template <typename ListArray, typename StringArray>
arrow::Status AddLists(const ListArray& lists, InvertedSegmentWriter* writer) {
  const auto& values = static_cast<const StringArray&>(*lists.values());
  for (int64_t i = 0; i < lists.length(); ++i) {
    writer->BeginDocument();
    if (lists.IsValid(i)) {
      const int64_t begin = lists.value_offset(i);
      const int64_t end = begin + lists.value_length(i);
      for (int64_t j = begin; j < end; ++j) {
        if (values.IsValid(j)) ARROW_RETURN_NOT_OK(writer->AddValue(values.GetView(j)));
      }
    }
    writer->EndDocument();
  }
  return arrow::Status::OK();
}

template <typename ListArray>
arrow::Status AddListsOf(const ListArray& lists, InvertedSegmentWriter* writer) {
  if (lists.values()->type_id() == arrow::Type::LARGE_STRING) {
    return AddLists<ListArray, arrow::LargeStringArray>(lists, writer);
  }
  return AddLists<ListArray, arrow::StringArray>(lists, writer);
}

arrow::Status AddColumn(const arrow::Array& column, InvertedSegmentWriter* writer) {
  switch (column.type_id()) {
    case arrow::Type::STRING:
      return AddStrings(static_cast<const arrow::StringArray&>(column), writer);
    case arrow::Type::LARGE_STRING:
      return AddStrings(static_cast<const arrow::LargeStringArray&>(column), writer);
    case arrow::Type::LIST:
      return AddListsOf(static_cast<const arrow::ListArray&>(column), writer);
    case arrow::Type::LARGE_LIST:
      return AddListsOf(static_cast<const arrow::LargeListArray&>(column), writer);
    default:
      return Error(ErrorKind::kInternal, "an INVERTED build got a column of type ",
                   column.type()->ToString());
  }
}

arrow::Result<InvertedFileStats> BuildFiles(const BuildInput& input, const Scheme& scheme,
                                            InvertedSegmentWriter* writer) {
  BuildInput sorted = input;
  std::sort(sorted.fragments.begin(), sorted.fragments.end(),
            [](const format::Fragment& a, const format::Fragment& b) { return a.id() < b.id(); });
  size_t next = 0;  // the next fragment of `sorted` to begin
  // Begins fragments up to `fragment_id`; the ones skipped (no batch came) must be empty.
  auto begin_through = [&](std::optional<uint32_t> fragment_id) -> arrow::Status {
    while (next < sorted.fragments.size() &&
           (!fragment_id || sorted.fragments[next].id() <= *fragment_id)) {
      const auto& fragment = sorted.fragments[next++];
      ARROW_RETURN_NOT_OK(
          writer->BeginFragment(fragment.id(), static_cast<uint32_t>(fragment.physical_rows())));
    }
    return arrow::Status::OK();
  };
  std::optional<uint32_t> current;
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      sorted, kInvertedFamilyName,
      [&](uint32_t fragment_id, uint64_t, const std::shared_ptr<arrow::Array>& column) {
        if (current != fragment_id) {
          ARROW_RETURN_NOT_OK(begin_through(fragment_id));
          current = fragment_id;
        }
        return AddColumn(*column, writer);
      }));
  ARROW_RETURN_NOT_OK(begin_through(std::nullopt));
  (void)scheme;
  return writer->Finish();
}

// ---------------------------------------------------------------------------------------------
// Merge

// One input's terms, for the k-way merge of dictionaries.
struct MergeInput {
  const InvertedSegmentReader* reader = nullptr;
  std::unique_ptr<TermDictionary::Iterator> terms;
  std::vector<uint32_t> renumber;  // input document -> merged document
};

arrow::Result<InvertedFileStats> MergeFiles(std::vector<MergeInput>& inputs, bool positions,
                                            const SegmentDirectory& out) {
  // The merged document order: every input's fragments, by id.
  struct Placed {
    FragmentRows fragment;
    size_t input;
  };
  std::vector<Placed> placed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const auto& fragment : inputs[i].reader->documents().fragments()) {
      placed.push_back(Placed{fragment, i});
    }
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.fragment.fragment_id < b.fragment.fragment_id;
  });
  std::vector<FragmentRows> fragments;
  std::vector<uint32_t> lengths;
  for (auto& input : inputs) input.renumber.resize(input.reader->document_count());
  for (const Placed& p : placed) {
    if (!fragments.empty() && fragments.back().fragment_id == p.fragment.fragment_id) {
      return InvalidArgument("cannot merge INVERTED segments that share fragment ",
                             p.fragment.fragment_id);
    }
    const uint64_t first = lengths.size();
    if (first + p.fragment.rows >= UINT32_MAX) {
      return Error(ErrorKind::kResourceExhausted,
                   "a merged INVERTED segment would hold 2^32 - 1 rows or more; merge fewer "
                   "segments at once");
    }
    fragments.push_back(
        FragmentRows{p.fragment.fragment_id, p.fragment.rows, static_cast<uint32_t>(first)});
    MergeInput& input = inputs[p.input];
    for (uint32_t k = 0; k < p.fragment.rows; ++k) {
      const uint32_t doc = p.fragment.first_doc + k;
      input.renumber[doc] = static_cast<uint32_t>(lengths.size());
      lengths.push_back(input.reader->document_length(doc));
    }
  }

  ARROW_ASSIGN_OR_RAISE(auto files, SegmentFilesWriter::Open(out, positions, &lengths));
  auto later = [&](size_t a, size_t b) {
    const int order = inputs[a].terms->term().compare(inputs[b].terms->term());
    return order != 0 ? order > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  auto advance = [&](size_t i) -> arrow::Status {
    if (inputs[i].terms->Next()) {
      heap.push(i);
    } else if (!inputs[i].terms->problem().empty()) {
      return inputs[i].reader->Damaged(kTermsFile, inputs[i].terms->problem());
    }
    return arrow::Status::OK();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].terms = std::make_unique<TermDictionary::Iterator>(&inputs[i].reader->dictionary());
    ARROW_RETURN_NOT_OK(advance(i));
  }
  std::string term;
  std::vector<size_t> holders;
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  while (!heap.empty()) {
    term.assign(inputs[heap.top()].terms->term());
    holders.clear();
    cursors.clear();
    while (!heap.empty() && inputs[heap.top()].terms->term() == term) {
      const size_t i = heap.top();
      heap.pop();
      ARROW_ASSIGN_OR_RAISE(auto cursor,
                            inputs[i].reader->OpenPostings(inputs[i].terms->postings()));
      holders.push_back(i);
      cursors.push_back(std::move(cursor));
    }
    files->BeginTerm(term);
    // Each input's documents renumber in ascending order: merge them by the new numbers.
    while (true) {
      size_t best = cursors.size();
      uint32_t best_doc = UINT32_MAX;
      for (size_t k = 0; k < cursors.size(); ++k) {
        if (cursors[k]->doc() == PostingCursor::kEnd) continue;
        const uint32_t doc = inputs[holders[k]].renumber[cursors[k]->doc()];
        if (doc < best_doc) {
          best_doc = doc;
          best = k;
        }
      }
      if (best == cursors.size()) break;
      PostingCursor& cursor = *cursors[best];
      if (positions) {
        ARROW_ASSIGN_OR_RAISE(auto found, cursor.Positions());
        files->Add(best_doc, cursor.term_frequency(), found.data());
      } else {
        files->Add(best_doc, cursor.term_frequency(), nullptr);
      }
      ARROW_RETURN_NOT_OK(cursor.Next());
    }
    ARROW_RETURN_NOT_OK(files->EndTerm());
    for (size_t i : holders) ARROW_RETURN_NOT_OK(advance(i));
  }
  return files->Finish(fragments);
}

}  // namespace

std::string_view InvertedFamily::name() const { return kInvertedFamilyName; }

arrow::Result<Params> InvertedFamily::Validate(const arrow::Field& column,
                                               const Params& params) const {
  ARROW_RETURN_NOT_OK(CheckTextColumn(column));
  ARROW_RETURN_NOT_OK(RejectUnknown(params));
  ARROW_ASSIGN_OR_RAISE(Scheme scheme, ParseInvertedScheme(params));
  Params normalized = ContentParams(scheme);
  normalized[std::string(kParamMemoryLimit)] = std::to_string(scheme.memory_limit);
  return normalized;
}

arrow::Result<format::SegmentMeta> InvertedFamily::Build(const BuildInput& input, const Model*,
                                                         const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, scalar::ColumnToBuild(input, "an INVERTED build"));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(Scheme scheme, ParseInvertedScheme(params));
  ARROW_ASSIGN_OR_RAISE(auto analyzer, Analyzer::Make(scheme.analyzer));
  InvertedWriterOptions options;
  options.has_positions = scheme.with_position;
  options.memory_limit = static_cast<uint64_t>(scheme.memory_limit);
  InvertedSegmentWriter writer(out, options, std::move(analyzer));
  auto stats = BuildFiles(input, scheme, &writer);
  if (!stats.ok()) {
    return scalar::WithBuildContext(stats.status(), kInvertedFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetInvertedDetails(ContentParams(scheme), *stats, writer.peak_accounted_bytes(),
                     writer.spill_runs(), &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kInvertedFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> InvertedFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked,
                        CheckMergeInputs(kInvertedFamilyName, inputs, dirs, out));
  const format::SegmentMeta& head = inputs.front();
  const Params content = ContentParamsOfSegment(head);
  std::vector<std::unique_ptr<InvertedSegmentReader>> readers;
  std::vector<MergeInput> merge_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Params other = ContentParamsOfSegment(inputs[i]);
    if (other != content) {
      return InvalidArgument(
          "cannot merge INVERTED segments built with different analyzers: "
          "segment ",
          inputs[i].uuid(), " has ", DescribeParams(other), ", segment ", head.uuid(), " has ",
          DescribeParams(content));
    }
    auto opened = InvertedSegmentReader::Open(inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], "");
    MergeInput input;
    input.reader = opened->get();
    merge_inputs.push_back(std::move(input));
    readers.push_back(std::move(*opened));
  }
  const bool positions = readers.front()->has_positions();
  for (const auto& reader : readers) {
    if (reader->has_positions() != positions) {
      return InvalidArgument("cannot merge INVERTED segments with and without positions: segment ",
                             reader->meta().uuid(), " and segment ", head.uuid());
    }
  }
  auto stats = MergeFiles(merge_inputs, positions, out);
  if (!stats.ok()) return scalar::WithMergeContext(stats.status(), kInvertedFamilyName, head);
  format::SegmentMeta meta;
  SetInvertedDetails(content, *stats, 0, 0, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, kInvertedFamilyName, out, &meta));
  return meta;
}

arrow::Result<std::unique_ptr<SegmentReader>> InvertedFamily::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, InvertedSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> InvertedFamily::RequiredFiles(const format::SegmentMeta&) const {
  std::vector<std::string> files;
  for (std::string_view name : InvertedFileNames()) {
    for (auto& path : io::FileAndChecksums(name)) files.push_back(std::move(path));
  }
  return files;
}

arrow::Status InvertedFamily::Verify(const BuildInput& definition,
                                     const format::SegmentMeta& segment,
                                     const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field,
                        scalar::ColumnToVerify(definition, kInvertedFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, definition.params));
  ARROW_ASSIGN_OR_RAISE(Scheme scheme, ParseInvertedScheme(params));
  const Params expected = ContentParams(scheme);
  const Params found = ContentParamsOfSegment(segment);
  if (found != expected) {
    return InvalidArgument("INVERTED segment ", segment.uuid(), " was built with ",
                           DescribeParams(found), " but index '", segment.index_name(),
                           "' on column '", field->name(), "' has ", DescribeParams(expected));
  }
  ARROW_ASSIGN_OR_RAISE(auto reader, InvertedSegmentReader::Open(segment, dir));
  if (reader->has_positions() != scheme.with_position) {
    return reader->Damaged(kDocumentsFile, "disagrees with the segment's with_position");
  }
  return reader->CheckAll();
}

std::unique_ptr<IndexFamily> MakeInvertedFamily() { return std::make_unique<InvertedFamily>(); }

}  // namespace tessera::index::text
