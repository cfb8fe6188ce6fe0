#include "tessera/query/text_sources.h"

#include <arrow/array.h>

#include <cctype>
#include <unordered_map>
#include <utility>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"

namespace tessera::query {

namespace {

bool IsInverted(std::string_view family) {
  const std::string_view wanted = kInvertedFamily;
  if (family.size() != wanted.size()) return false;
  for (size_t i = 0; i < family.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(family[i])) != wanted[i]) return false;
  }
  return true;
}

bool IsStringType(const arrow::DataType& type) {
  return type.id() == arrow::Type::STRING || type.id() == arrow::Type::LARGE_STRING;
}

void StringValue(const arrow::Array& array, int64_t index, std::vector<std::string_view>* values) {
  if (array.IsNull(index)) return;
  if (array.type_id() == arrow::Type::STRING) {
    values->push_back(static_cast<const arrow::StringArray&>(array).GetView(index));
  } else {
    values->push_back(static_cast<const arrow::LargeStringArray&>(array).GetView(index));
  }
}

using FragmentMap = std::unordered_map<uint32_t, const EligibleFragment*>;

FragmentMap MapFragments(const EligibleRows& rows) {
  FragmentMap map;
  for (const auto& fragment : rows.fragments()) map.emplace(fragment.id(), &fragment);
  return map;
}

// Fills source.live, source.accepted, live_count and live_length.
void MarkDocuments(const FragmentMap& live_rows, const FragmentMap& accepted_rows, bool prefiltered,
                   bool all_live, TextSource& source) {
  const index::TextSegmentReader& reader = *source.reader;
  const uint32_t count = reader.document_count();
  std::unordered_map<uint32_t, bool> served;
  for (uint32_t id : source.fragment_ids) served.emplace(id, true);
  if (all_live) {
    source.live_count = count;
    source.live_length = reader.total_length();
    if (!prefiltered) return;  // every document live and accepted: nothing to mark
  } else {
    source.live.assign(count, 0);
  }
  if (prefiltered) source.accepted.assign(count, 0);
  uint32_t last_fragment = UINT32_MAX;
  const EligibleFragment* live_fragment = nullptr;
  const EligibleFragment* accepted_fragment = nullptr;
  for (uint32_t doc = 0; doc < count; ++doc) {
    const uint64_t address = reader.row_address(doc);
    const uint32_t fragment = dataset::FragmentOf(address);
    if (fragment != last_fragment) {
      last_fragment = fragment;
      live_fragment = nullptr;
      accepted_fragment = nullptr;
      if (served.count(fragment) != 0) {
        auto live_it = live_rows.find(fragment);
        if (live_it != live_rows.end()) live_fragment = live_it->second;
        auto accepted_it = accepted_rows.find(fragment);
        if (accepted_it != accepted_rows.end()) accepted_fragment = accepted_it->second;
      }
    }
    const uint32_t offset = dataset::OffsetOf(address);
    const bool live = live_fragment != nullptr && offset < live_fragment->physical_rows() &&
                      live_fragment->Accepts(offset);
    if (!all_live && live) {
      source.live[doc] = 1;
      ++source.live_count;
      source.live_length += reader.document_length(doc);
    }
    if (prefiltered && live && accepted_fragment != nullptr && accepted_fragment->Accepts(offset)) {
      source.accepted[doc] = 1;
    }
  }
  if (!prefiltered && !all_live) source.accepted = source.live;
}

arrow::Status LoadTail(const Snapshot& snapshot, int column_index,
                       const std::vector<const EligibleFragment*>& fragments,
                       index::text::Analyzer& analyzer, MemoryTextSegment& tail) {
  const dataset::Dataset& dataset = snapshot.dataset();
  std::vector<std::string_view> values;
  for (const EligibleFragment* fragment : fragments) {
    ARROW_ASSIGN_OR_RAISE(auto reader, dataset::FragmentReader::Open(
                                           *dataset.storage(), *fragment->fragment,
                                           dataset.schema(), {column_index}, fragment->deleted));
    for (int index = 0; index < reader->num_batches(); ++index) {
      ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(index));
      dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
      const arrow::Array& column = *batch->column(0);
      const uint64_t first = static_cast<uint64_t>(index) * reader->rows_per_batch();
      for (int64_t row = 0; row < column.length(); ++row) {
        const auto offset = static_cast<uint32_t>(first + static_cast<uint64_t>(row));
        if (fragment->deleted != nullptr && fragment->deleted->contains(offset)) continue;
        values.clear();
        RowValues(column, row, &values);
        ARROW_RETURN_NOT_OK(
            tail.AddAnalyzed(dataset::MakeRowAddress(fragment->id(), offset), values, analyzer));
      }
    }
  }
  return arrow::Status::OK();
}

}  // namespace

bool IsTextType(const arrow::DataType& type) {
  if (IsStringType(type)) return true;
  if (type.id() == arrow::Type::LIST || type.id() == arrow::Type::LARGE_LIST) {
    return IsStringType(*type.field(0)->type());
  }
  return false;
}

void RowValues(const arrow::Array& column, int64_t row, std::vector<std::string_view>* values) {
  if (column.IsNull(row)) return;
  if (column.type_id() == arrow::Type::LIST) {
    const auto& list = static_cast<const arrow::ListArray&>(column);
    const arrow::Array& elements = *list.values();
    for (int64_t i = list.value_offset(row); i < list.value_offset(row + 1); ++i) {
      StringValue(elements, i, values);
    }
  } else if (column.type_id() == arrow::Type::LARGE_LIST) {
    const auto& list = static_cast<const arrow::LargeListArray&>(column);
    const arrow::Array& elements = *list.values();
    for (int64_t i = list.value_offset(row); i < list.value_offset(row + 1); ++i) {
      StringValue(elements, i, values);
    }
  } else {
    StringValue(column, row, values);
  }
}

arrow::Result<TextSources> OpenTextSources(const Snapshot& snapshot, int column_index,
                                           const EligibleRows& live, const EligibleRows& accepted) {
  TextSources result;
  const format::Manifest& manifest = snapshot.manifest();
  const format::IndexDef* analyzer_index = nullptr;
  const OpenedIndex* serving = nullptr;
  for (int position : snapshot.IndexesOnField(column_index)) {
    const format::IndexDef& definition = manifest.indexes(position);
    if (!IsInverted(definition.family())) continue;
    if (serving != nullptr) {
      result.notes.push_back("index '" + definition.name() + "' not used: index '" +
                             serving->definition->name() + "' on the same column serves it");
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(const OpenedIndex* opened, snapshot.Index(position));
    if (analyzer_index == nullptr) analyzer_index = &definition;
    bool serves = false;
    for (const OpenedSegment& segment : opened->segments) {
      if (!segment.live_fragments.isEmpty() && segment.reader->AsText() != nullptr) serves = true;
    }
    if (serves) {
      serving = opened;
      analyzer_index = &definition;
    }
  }
  if (analyzer_index != nullptr) {
    result.index_name = analyzer_index->name();
    index::Params params(analyzer_index->params().begin(), analyzer_index->params().end());
    auto options = index::text::ParseAnalyzerOptions(params, kInvertedFamily);
    if (!options.ok()) {
      return options.status().WithMessage("index '", analyzer_index->name(),
                                          "': ", options.status().message());
    }
    result.analyzer = *options;
  }
  result.analyzers = std::make_shared<index::text::AnalyzerPool>(result.analyzer);

  const FragmentMap live_rows = MapFragments(live);
  const FragmentMap accepted_rows = MapFragments(accepted);
  std::unordered_map<uint32_t, bool> assigned;
  if (serving != nullptr) {
    for (const OpenedSegment& segment : serving->segments) {
      index::TextSegmentReader* reader = segment.reader->AsText();
      if (reader == nullptr || segment.live_fragments.isEmpty()) continue;
      TextSource source;
      source.index_name = serving->definition->name();
      source.segment_uuid = segment.meta->uuid();
      source.owner = segment.reader;
      source.reader = reader;
      bool all_live = segment.fragments.cardinality() == segment.live_fragments.cardinality();
      for (const auto& fragment : manifest.fragments()) {
        if (!segment.live_fragments.contains(fragment.id()) || assigned.count(fragment.id())) {
          if (segment.fragments.contains(fragment.id())) all_live = false;
          continue;
        }
        assigned.emplace(fragment.id(), true);
        source.fragment_ids.push_back(fragment.id());
        auto it = live_rows.find(fragment.id());
        if (it != live_rows.end() && !it->second->deleted->isEmpty()) all_live = false;
      }
      if (source.fragment_ids.empty()) continue;
      MarkDocuments(live_rows, accepted_rows, accepted.prefiltered(), all_live, source);
      result.sources.push_back(std::move(source));
    }
  }

  std::vector<const EligibleFragment*> tail_fragments;
  TextSource tail_source;
  for (const auto& fragment : live.fragments()) {
    if (assigned.count(fragment.id()) != 0) continue;
    tail_fragments.push_back(&fragment);
    tail_source.fragment_ids.push_back(fragment.id());
  }
  if (!tail_fragments.empty()) {
    auto tail = std::make_shared<MemoryTextSegment>(/*with_positions=*/true);
    ARROW_ASSIGN_OR_RAISE(auto analyzer, result.analyzers->Acquire());
    ARROW_RETURN_NOT_OK(LoadTail(snapshot, column_index, tail_fragments, *analyzer, *tail));
    tail_source.reader = tail.get();
    tail_source.owner = std::move(tail);
    MarkDocuments(live_rows, accepted_rows, accepted.prefiltered(), /*all_live=*/true, tail_source);
    result.sources.push_back(std::move(tail_source));
  }
  return result;
}

}  // namespace tessera::query
