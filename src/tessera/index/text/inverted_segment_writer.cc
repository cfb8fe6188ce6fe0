#include "tessera/index/text/inverted_segment_writer.h"

#include <algorithm>

#include "tessera/index/text/spill_runs.h"
#include "tessera/index/text_segment.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

// Bytes of a hash-map node beyond its key's heap buffer: the pair, the next pointer and the
// cached hash, and the allocation's own overhead.
constexpr uint64_t kNodeBytes =
    sizeof(std::pair<const std::string, uint32_t>) + 2 * sizeof(void*) + kAllocationOverheadBytes;
constexpr size_t kShortStringCapacity = 15;  // kept inside std::string (no heap buffer)

uint64_t StringHeapBytes(size_t length) {
  return length > kShortStringCapacity ? length + 1 + kAllocationOverheadBytes : 0;
}

uint64_t VectorBytes(size_t capacity) {
  return capacity == 0 ? 0 : capacity * sizeof(uint32_t) + kAllocationOverheadBytes;
}

// The capacity a vector grows to for `extra` more values: doubling, but by at most
// kMaxGrowthBytes at once, so that one growth never jumps far past the memory limit.
size_t GrownCapacity(const std::vector<uint32_t>& values, size_t extra) {
  const size_t capacity = values.capacity();
  if (values.size() + extra <= capacity) return capacity;
  const size_t step = std::clamp<size_t>(capacity, 2, kMaxGrowthBytes / sizeof(uint32_t));
  return std::max(values.size() + extra, capacity + step);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SegmentFilesWriter

SegmentFilesWriter::SegmentFilesWriter(const std::vector<uint32_t>* lengths,
                                       std::unique_ptr<FileOutput> positions, bool has_positions)
    : lengths_(lengths),
      has_positions_(has_positions),
      positions_(std::move(positions)),
      encoder_(lengths, has_positions ? positions_.get() : nullptr) {}

arrow::Result<std::unique_ptr<SegmentFilesWriter>> SegmentFilesWriter::Open(
    const SegmentDirectory& out, bool has_positions,
    const std::vector<uint32_t>* document_lengths) {
  ARROW_ASSIGN_OR_RAISE(auto positions, FileOutput::Open(out, kPositionsFile));
  std::unique_ptr<SegmentFilesWriter> writer(
      new SegmentFilesWriter(document_lengths, std::move(positions), has_positions));
  writer->out_ = out;
  ARROW_ASSIGN_OR_RAISE(writer->postings_, FileOutput::Open(out, kPostingsFile));
  ARROW_ASSIGN_OR_RAISE(writer->terms_, FileOutput::Open(out, kTermsFile));
  writer->dictionary_ = std::make_unique<TermDictionaryWriter>(writer->terms_.get());
  return writer;
}

void SegmentFilesWriter::BeginTerm(std::string_view term) {
  term_.assign(term);
  encoder_.Begin();
}

arrow::Status SegmentFilesWriter::EndTerm() {
  record_.clear();
  const uint64_t offset = postings_->size();
  const uint32_t frequency = encoder_.Finish(&record_);
  if (frequency == 0) return arrow::Status::OK();
  postings_->Append(record_);
  dictionary_->Add(term_, frequency, offset, record_.size());
  ++stats_.num_terms;
  stats_.num_postings += frequency;
  if (record_.capacity() > (4u << 20)) std::string().swap(record_);  // a huge term's buffer
  return postings_->status();
}

arrow::Result<InvertedFileStats> SegmentFilesWriter::Finish(
    const std::vector<FragmentRows>& fragments) {
  dictionary_->Finish();
  ARROW_RETURN_NOT_OK(terms_->Close());
  ARROW_RETURN_NOT_OK(postings_->Close());
  ARROW_RETURN_NOT_OK(positions_->Close());
  ARROW_ASSIGN_OR_RAISE(auto documents, FileOutput::Open(out_, kDocumentsFile));
  documents->Append(EncodeDocumentTable(fragments, *lengths_, has_positions_));
  ARROW_RETURN_NOT_OK(documents->Close());
  stats_.num_documents = lengths_->size();
  stats_.total_length = 0;
  for (uint32_t length : *lengths_) stats_.total_length += length;
  return stats_;
}

// ---------------------------------------------------------------------------------------------
// InvertedSegmentWriter

InvertedSegmentWriter::InvertedSegmentWriter(SegmentDirectory out, InvertedWriterOptions options,
                                             std::unique_ptr<Analyzer> analyzer)
    : out_(std::move(out)), options_(options), analyzer_(std::move(analyzer)) {
  accounted_ = BucketBytes();
  peak_ = accounted_;
}

InvertedSegmentWriter::~InvertedSegmentWriter() {
  for (const auto& run : runs_) (void)out_.storage->DeleteFile(run);
}

uint64_t InvertedSegmentWriter::BucketBytes() const {
  return static_cast<uint64_t>(ids_.bucket_count()) * sizeof(void*);
}

void InvertedSegmentWriter::CountAccounted(int64_t delta) {
  accounted_ = static_cast<uint64_t>(static_cast<int64_t>(accounted_) + delta);
  peak_ = std::max(peak_, accounted_);
}

arrow::Status InvertedSegmentWriter::BeginFragment(uint32_t fragment_id, uint32_t rows) {
  const uint32_t first = static_cast<uint32_t>(lengths_.size());
  if (!fragments_.empty()) {
    const FragmentRows& last = fragments_.back();
    if (fragment_id <= last.fragment_id || first != last.first_doc + last.rows) {
      return Error(ErrorKind::kInternal, "fragments of an INVERTED build arrived out of order");
    }
  }
  if (static_cast<uint64_t>(first) + rows >= UINT32_MAX) {
    return Error(ErrorKind::kResourceExhausted,
                 "an INVERTED segment holds fewer than 2^32 - 1 rows; build one "
                 "segment per subset of the fragments and query them together");
  }
  fragments_.push_back(FragmentRows{fragment_id, rows, first});
  lengths_.reserve(lengths_.size() + rows);
  return arrow::Status::OK();
}

void InvertedSegmentWriter::BeginDocument() {
  doc_ = static_cast<uint32_t>(lengths_.size());
  lengths_.push_back(0);
  next_position_ = 0;
  values_ = 0;
}

arrow::Status InvertedSegmentWriter::AddValue(std::string_view text) {
  ARROW_RETURN_NOT_OK(status_);
  uint32_t first = next_position_;
  if (values_ > 0) {
    first = next_position_ > UINT32_MAX - 2 * kListElementPositionGap
                ? next_position_
                : next_position_ + kListElementPositionGap;
  }
  ++values_;
  uint32_t& length = lengths_.back();
  next_position_ = analyzer_->Analyze(text, first, [&](const Token& token) {
    ++length;
    if (status_.ok()) status_ = AddToken(token.term, token.position);
  });
  return status_;
}

void InvertedSegmentWriter::EndDocument() {}

arrow::Status InvertedSegmentWriter::AddToken(std::string_view term, uint32_t position) {
  for (int attempt = 0;; ++attempt) {
    auto found = ids_.find(term);
    TermEntry* entry = found == ids_.end() ? nullptr : &entries_[found->second];
    // What this token would add, to spill first when it would pass the limit.
    uint64_t need = 0;
    if (entry == nullptr) {
      need += kNodeBytes + StringHeapBytes(term.size()) + sizeof(TermEntry) + VectorBytes(2) +
              (options_.has_positions ? VectorBytes(2) : 0);
      if (static_cast<double>(ids_.size() + 1) >
          static_cast<double>(ids_.bucket_count()) * ids_.max_load_factor()) {
        need += BucketBytes() * 2 + sizeof(void*) * 16;
      }
    } else {
      const bool new_document = entry->documents[entry->documents.size() - 2] != doc_;
      if (new_document) {
        need += VectorBytes(GrownCapacity(entry->documents, 2)) -
                VectorBytes(entry->documents.capacity());
      }
      if (options_.has_positions) {
        need += VectorBytes(GrownCapacity(entry->positions, 1)) -
                VectorBytes(entry->positions.capacity());
      }
    }
    if (need > 0 && attempt == 0 && accounted_ + need > options_.memory_limit &&
        !entries_.empty()) {
      ARROW_RETURN_NOT_OK(Spill());
      continue;
    }
    if (entry == nullptr) {
      const uint64_t buckets_before = BucketBytes();
      auto inserted = ids_.emplace(std::string(term), static_cast<uint32_t>(entries_.size()));
      entries_.emplace_back();
      entry = &entries_.back();
      entry->term = &inserted.first->first;
      entry->documents.reserve(2);
      entry->documents.push_back(doc_);
      entry->documents.push_back(1);
      if (options_.has_positions) {
        entry->positions.reserve(2);
        entry->positions.push_back(position);
      }
      CountAccounted(static_cast<int64_t>(
          kNodeBytes + StringHeapBytes(term.size()) + sizeof(TermEntry) +
          VectorBytes(entry->documents.capacity()) + VectorBytes(entry->positions.capacity()) +
          BucketBytes() - buckets_before));
      return arrow::Status::OK();
    }
    int64_t delta = 0;
    auto& documents = entry->documents;
    if (documents[documents.size() - 2] != doc_) {
      const size_t capacity = GrownCapacity(documents, 2);
      if (capacity != documents.capacity()) {
        delta += static_cast<int64_t>(VectorBytes(capacity) - VectorBytes(documents.capacity()));
        documents.reserve(capacity);
      }
      documents.push_back(doc_);
      documents.push_back(1);
    } else {
      ++documents.back();
    }
    if (options_.has_positions) {
      auto& positions = entry->positions;
      const size_t capacity = GrownCapacity(positions, 1);
      if (capacity != positions.capacity()) {
        delta += static_cast<int64_t>(VectorBytes(capacity) - VectorBytes(positions.capacity()));
        positions.reserve(capacity);
      }
      positions.push_back(position);
    }
    if (delta != 0) CountAccounted(delta);
    return arrow::Status::OK();
  }
}

std::vector<InvertedSegmentWriter::TermEntry*> InvertedSegmentWriter::SortedEntries() {
  std::vector<TermEntry*> sorted;
  sorted.reserve(entries_.size());
  for (auto& entry : entries_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const TermEntry* a, const TermEntry* b) { return *a->term < *b->term; });
  return sorted;
}

void InvertedSegmentWriter::Clear() {
  ids_.clear();  // keeps the bucket array, which stays accounted
  std::deque<TermEntry>().swap(entries_);
  accounted_ = BucketBytes();
}

arrow::Status InvertedSegmentWriter::Spill() {
  const std::string path = out_.path + "/spill-" + std::to_string(runs_.size()) + ".run";
  runs_.push_back(path);
  ARROW_ASSIGN_OR_RAISE(auto run, RunWriter::Open(out_, path, options_.has_positions));
  for (TermEntry* entry : SortedEntries()) {
    ARROW_RETURN_NOT_OK(run->Add(*entry->term, entry->documents.data(), entry->documents.size() / 2,
                                 entry->positions.data()));
  }
  ARROW_RETURN_NOT_OK(run->Close());
  Clear();
  return arrow::Status::OK();
}

arrow::Result<InvertedFileStats> InvertedSegmentWriter::Finish() {
  ARROW_RETURN_NOT_OK(status_);
  uint64_t rows = 0;
  for (const auto& fragment : fragments_) rows += fragment.rows;
  if (rows != lengths_.size()) {
    return Error(ErrorKind::kInternal, "an INVERTED build read ", lengths_.size(),
                 " rows of fragments holding ", rows);
  }
  ARROW_ASSIGN_OR_RAISE(auto files,
                        SegmentFilesWriter::Open(out_, options_.has_positions, &lengths_));
  if (runs_.empty()) {
    for (TermEntry* entry : SortedEntries()) {
      files->BeginTerm(*entry->term);
      const uint32_t* positions = options_.has_positions ? entry->positions.data() : nullptr;
      for (size_t i = 0; i + 1 < entry->documents.size(); i += 2) {
        files->Add(entry->documents[i], entry->documents[i + 1], positions);
        if (positions != nullptr) positions += entry->documents[i + 1];
      }
      ARROW_RETURN_NOT_OK(files->EndTerm());
      std::vector<uint32_t>().swap(entry->documents);  // release as we go
      std::vector<uint32_t>().swap(entry->positions);
    }
    Clear();
  } else {
    if (!entries_.empty()) ARROW_RETURN_NOT_OK(Spill());
    std::vector<std::unique_ptr<RunReader>> readers;
    std::vector<RunReader*> runs;
    for (const auto& path : runs_) {
      ARROW_ASSIGN_OR_RAISE(auto reader, RunReader::Open(out_, path, options_.has_positions));
      runs.push_back(reader.get());
      readers.push_back(std::move(reader));
    }
    ARROW_RETURN_NOT_OK(MergeRuns(runs, options_.has_positions, files.get()));
    readers.clear();
    for (const auto& path : runs_) ARROW_RETURN_NOT_OK(out_.storage->DeleteFile(path));
    spilled_ = static_cast<uint32_t>(runs_.size());
    runs_.clear();
  }
  return files->Finish(fragments_);
}

}  // namespace tessera::index::text
