#include "tessera/index/scalar/ngram_family.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/builtin_families.h"
#include "tessera/index/column_batches.h"
#include "tessera/index/merge_inputs.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/scalar/ngram_segment_reader.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

constexpr std::string_view kTrue = "true";
constexpr std::string_view kFalse = "false";

bool IsStringType(const arrow::DataType& type) {
  return type.id() == arrow::Type::STRING || type.id() == arrow::Type::LARGE_STRING;
}

arrow::Status CheckColumnType(const arrow::Field& column) {
  if (IsStringType(*column.type())) return arrow::Status::OK();
  return Unsupported("an NGRAM index cannot be built on column '", column.name(), "' of type ",
                     column.type()->ToString(),
                     "; NGRAM indexes columns of type string (utf8) and large_string");
}

Params SchemeParams(const GramScheme& scheme) {
  return Params{
      {std::string(kNgramParamN), std::to_string(scheme.n)},
      {std::string(kNgramParamCaseFolding), std::string(scheme.case_folding ? kTrue : kFalse)}};
}

void SetDetails(const GramScheme& scheme, const PostingListStats& stats, uint64_t num_rows,
                format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  for (auto& [key, value] : SchemeParams(scheme)) details[key] = value;
  details[std::string(kNgramDetailNumGrams)] = std::to_string(stats.num_keys);
  details[std::string(kNgramDetailNumPostings)] = std::to_string(stats.num_postings);
  details[std::string(kNgramDetailNumNulls)] = std::to_string(stats.num_nulls);
  meta->set_num_rows(num_rows);
}

template <typename StringArray>
void CollectGrams(const StringArray& strings, uint32_t fragment_id, uint64_t first,
                  const GramScheme& scheme,
                  std::unordered_map<Gram, std::vector<uint64_t>>* postings,
                  std::vector<uint64_t>* nulls) {
  std::vector<Gram> grams;
  for (int64_t i = 0; i < strings.length(); ++i) {
    const uint64_t address = dataset::MakeRowAddress(
        fragment_id, static_cast<uint32_t>(first + static_cast<uint64_t>(i)));
    if (strings.IsNull(i)) {
      nulls->push_back(address);
      continue;
    }
    GramsOfValue(strings.GetView(i), scheme, &grams);
    for (Gram gram : grams) (*postings)[gram].push_back(address);
  }
}

// Reads the column of every fragment once, collecting each gram's rows, and writes them out.
arrow::Result<PostingListStats> BuildPostings(const BuildInput& input, const GramScheme& scheme,
                                              const SegmentDirectory& out, uint64_t* num_rows) {
  std::unordered_map<Gram, std::vector<uint64_t>> postings;
  std::vector<uint64_t> nulls;
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      input, kNgramFamilyName,
      [&](uint32_t fragment_id, uint64_t first, const std::shared_ptr<arrow::Array>& column) {
        *num_rows += static_cast<uint64_t>(column->length());
        if (column->type_id() == arrow::Type::LARGE_STRING) {
          CollectGrams(static_cast<const arrow::LargeStringArray&>(*column), fragment_id, first,
                       scheme, &postings, &nulls);
        } else {
          CollectGrams(static_cast<const arrow::StringArray&>(*column), fragment_id, first, scheme,
                       &postings, &nulls);
        }
        return arrow::Status::OK();
      }));
  std::vector<Gram> grams;
  grams.reserve(postings.size());
  for (const auto& entry : postings) grams.push_back(entry.first);
  std::sort(grams.begin(), grams.end());
  std::sort(nulls.begin(), nulls.end());

  ARROW_ASSIGN_OR_RAISE(auto writer, PostingListWriter<uint64_t>::Open(
                                         out, NgramFiles(), arrow::uint64(), kNgramFamilyName));
  for (Gram gram : grams) {
    std::vector<uint64_t>& rows = postings[gram];
    // Rows arrive ascending within a fragment; fragments may come in any order.
    if (!std::is_sorted(rows.begin(), rows.end())) std::sort(rows.begin(), rows.end());
    ARROW_RETURN_NOT_OK(writer->Append(gram, rows));
    std::vector<uint64_t>().swap(rows);  // release as we go
  }
  return writer->Finish(nulls);
}

// The scheme `params` name, defaults filled in.
arrow::Result<GramScheme> ParseScheme(const Params& params) {
  ARROW_ASSIGN_OR_RAISE(int64_t n,
                        IntegerParam(params, kNgramFamilyName, kNgramParamN, kDefaultGramLength,
                                     kMinGramLength, kMaxGramLength));
  ARROW_ASSIGN_OR_RAISE(
      std::string folding,
      ChoiceParam(params, kNgramFamilyName, kNgramParamCaseFolding, kTrue, {kTrue, kFalse}));
  return GramScheme{static_cast<int>(n), folding == kTrue};
}

std::string DescribeScheme(const GramScheme& scheme) {
  return DescribeParams(SchemeParams(scheme));
}

}  // namespace

const PostingListFiles& NgramFiles() {
  static const PostingListFiles files;
  return files;
}

arrow::Result<GramScheme> GramSchemeOf(const Params& params) {
  for (std::string_view key : {kNgramParamN, kNgramParamCaseFolding}) {
    if (params.find(std::string(key)) == params.end()) {
      return InvalidArgument("the NGRAM parameter '", key, "' is missing");
    }
  }
  return ParseScheme(params);
}

arrow::Result<GramScheme> GramSchemeOfSegment(const format::SegmentMeta& segment) {
  const Params details(segment.details().begin(), segment.details().end());
  auto scheme = GramSchemeOf(details);
  if (!scheme.ok()) {
    return InvalidArgument("NGRAM segment ", segment.uuid(), " of index '", segment.index_name(),
                           "' records no valid gram scheme: ", scheme.status().message());
  }
  return scheme;
}

std::string_view NgramFamily::name() const { return kNgramFamilyName; }

arrow::Result<Params> NgramFamily::Validate(const arrow::Field& column,
                                            const Params& params) const {
  ARROW_RETURN_NOT_OK(CheckColumnType(column));
  ARROW_RETURN_NOT_OK(
      RejectUnknownParams(params, kNgramFamilyName, {kNgramParamN, kNgramParamCaseFolding}));
  ARROW_ASSIGN_OR_RAISE(GramScheme scheme, ParseScheme(params));
  return SchemeParams(scheme);
}

arrow::Result<format::SegmentMeta> NgramFamily::Build(const BuildInput& input, const Model*,
                                                      const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "an NGRAM build"));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(GramScheme scheme, GramSchemeOf(params));
  uint64_t num_rows = 0;
  auto stats = BuildPostings(input, scheme, out, &num_rows);
  if (!stats.ok()) {
    return WithBuildContext(stats.status(), kNgramFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetDetails(scheme, *stats, num_rows, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kNgramFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> NgramFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked, CheckMergeInputs(kNgramFamilyName, inputs, dirs, out));
  const format::SegmentMeta& head = inputs.front();
  ARROW_ASSIGN_OR_RAISE(GramScheme scheme, GramSchemeOfSegment(head));
  std::vector<std::unique_ptr<NgramSegmentReader>> readers;
  std::vector<const PostingListReader*> postings;
  uint64_t num_rows = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(GramScheme other, GramSchemeOfSegment(inputs[i]));
    if (other.n != scheme.n || other.case_folding != scheme.case_folding) {
      return InvalidArgument("cannot merge NGRAM segments built with different grams: segment ",
                             inputs[i].uuid(), " has ", DescribeScheme(other), ", segment ",
                             head.uuid(), " has ", DescribeScheme(scheme));
    }
    auto opened = NgramSegmentReader::Open(inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], "");
    postings.push_back(&(*opened)->postings());
    readers.push_back(std::move(*opened));
    num_rows += inputs[i].num_rows();
  }
  auto stats = MergePostingLists(postings, out, NgramFiles());
  if (!stats.ok()) {
    return WithMergeContext(stats.status(), kNgramFamilyName, head);
  }
  format::SegmentMeta meta;
  SetDetails(scheme, *stats, num_rows, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, kNgramFamilyName, out, &meta));
  return meta;
}

arrow::Result<std::unique_ptr<SegmentReader>> NgramFamily::Open(const format::SegmentMeta& segment,
                                                                const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, NgramSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> NgramFamily::RequiredFiles(const format::SegmentMeta&) const {
  return NgramFiles().WithChecksums();
}

arrow::Status NgramFamily::Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                                  const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kNgramFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, definition.params));
  ARROW_ASSIGN_OR_RAISE(GramScheme expected, GramSchemeOf(params));
  ARROW_ASSIGN_OR_RAISE(auto reader, NgramSegmentReader::Open(segment, dir));
  const GramScheme& found = reader->scheme();
  if (found.n != expected.n || found.case_folding != expected.case_folding) {
    return InvalidArgument("NGRAM segment ", segment.uuid(), " was built with ",
                           DescribeScheme(found), " but index '", segment.index_name(),
                           "' on column '", field->name(), "' has ", DescribeScheme(expected));
  }
  return arrow::Status::OK();
}

std::unique_ptr<IndexFamily> MakeNgramFamily() { return std::make_unique<NgramFamily>(); }

}  // namespace tessera::index::scalar
