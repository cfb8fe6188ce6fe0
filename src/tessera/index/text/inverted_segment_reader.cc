#include "tessera/index/text/inverted_segment_reader.h"

#include <algorithm>

#include "tessera/index/segment_meta.h"
#include "tessera/index/text/posting_codec.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr std::string_view kRebuildRemedy =
    "rebuild the index (tessera index create --replace) or drop it";

class InvertedPostingCursor final : public PostingCursor {
 public:
  InvertedPostingCursor(const InvertedSegmentReader* reader, const uint8_t* record,
                        uint32_t document_frequency, std::vector<PostingBlockHeader> headers)
      : reader_(reader),
        record_(record),
        document_frequency_(document_frequency),
        headers_(std::move(headers)) {}

  arrow::Status Start() { return LoadBlock(0); }

  uint32_t doc() const override { return doc_; }
  uint32_t term_frequency() const override { return doc_ == kEnd ? 0 : frequencies_[index_]; }

  arrow::Status Next() override {
    if (doc_ == kEnd) return arrow::Status::OK();
    if (++index_ < count_) {
      doc_ = docs_[index_];
      return arrow::Status::OK();
    }
    return LoadBlock(block_ + 1);
  }

  arrow::Status Advance(uint32_t target) override {
    if (doc_ >= target) return arrow::Status::OK();
    if (target > headers_[block_].last_doc) {
      auto it =
          std::lower_bound(headers_.begin() + block_ + 1, headers_.end(), target,
                           [](const PostingBlockHeader& h, uint32_t t) { return h.last_doc < t; });
      ARROW_RETURN_NOT_OK(LoadBlock(static_cast<uint32_t>(it - headers_.begin())));
      if (doc_ == kEnd) return arrow::Status::OK();
    }
    // Galloping from the current document: a leapfrog's targets are mostly a few documents
    // ahead, found in a step or two rather than a binary search's seven.
    uint32_t low = index_;
    uint32_t step = 1;
    while (low + step < count_ && docs_[low + step] < target) {
      low += step;
      step *= 2;
    }
    const uint32_t* found =
        std::lower_bound(docs_ + low, docs_ + std::min(count_, low + step + 1), target);
    index_ = static_cast<uint32_t>(found - docs_);
    doc_ = docs_[index_];
    return arrow::Status::OK();
  }

  arrow::Status ShallowAdvance(uint32_t target) override {
    const uint32_t from = std::max(shallow_, block_);
    if (from >= headers_.size() || headers_[from].last_doc >= target) {
      shallow_ = from;
      return arrow::Status::OK();
    }
    auto it =
        std::lower_bound(headers_.begin() + from, headers_.end(), target,
                         [](const PostingBlockHeader& h, uint32_t t) { return h.last_doc < t; });
    shallow_ = static_cast<uint32_t>(it - headers_.begin());
    return arrow::Status::OK();
  }
  uint32_t block_last_doc() const override {
    const uint32_t b = std::max(shallow_, block_);
    return b < headers_.size() ? headers_[b].last_doc : kEnd;
  }
  uint32_t block_max_term_frequency() const override {
    const uint32_t b = std::max(shallow_, block_);
    return b < headers_.size() ? headers_[b].max_term_frequency : 0;
  }
  uint32_t block_min_document_length() const override {
    const uint32_t b = std::max(shallow_, block_);
    return b < headers_.size() ? headers_[b].min_document_length : 0;
  }

  BlockRemainder RemainderOfBlock() const override {
    if (doc_ == kEnd) return {};
    return {docs_ + index_, frequencies_ + index_, count_ - index_};
  }

  arrow::Status PositionsInto(std::vector<uint32_t>* positions) override {
    if (!reader_->has_positions()) {
      return Unsupported("INVERTED index '", reader_->meta().index_name(),
                         "' was built without positions (index parameter with_position=false); "
                         "recreate it with with_position=true for phrase queries");
    }
    positions->clear();
    if (doc_ == kEnd) return arrow::Status::OK();
    if (positions_block_ != block_) ARROW_RETURN_NOT_OK(LoadPositions());
    const uint32_t begin = position_starts_[index_];
    positions->resize(frequencies_[index_]);
    uint32_t position = 0;
    for (uint32_t i = 0; i < positions->size(); ++i) {
      position += position_gaps_[begin + i];
      (*positions)[i] = position;
    }
    return arrow::Status::OK();
  }

 private:
  // Decodes block `block` (or ends the cursor past the last one).
  arrow::Status LoadBlock(uint32_t block) {
    block_ = block;
    index_ = 0;
    if (block >= headers_.size()) {
      block_ = static_cast<uint32_t>(headers_.size());
      doc_ = kEnd;
      count_ = 0;
      return arrow::Status::OK();
    }
    const PostingBlockHeader& header = headers_[block];
    count_ = block + 1 < headers_.size() ? kPostingBlockSize
                                         : document_frequency_ - block * kPostingBlockSize;
    const uint8_t* data = record_ + header.doc_offset;
    ARROW_RETURN_NOT_OK(reader_->VerifyPostings(data, header.doc_bytes));
    if (!DecodeDocumentBlock(data, header, count_, block == 0,
                             block == 0 ? 0 : headers_[block - 1].last_doc, docs_, frequencies_) ||
        header.last_doc >= reader_->document_count()) {
      doc_ = kEnd;
      return reader_->Damaged(kPostingsFile,
                              Concat("holds a malformed block ", block, " of a posting list"));
    }
    uint32_t max_frequency = 0;
    for (uint32_t i = 0; i < count_; ++i) max_frequency = std::max(max_frequency, frequencies_[i]);
    if (max_frequency != header.max_term_frequency) {
      doc_ = kEnd;
      return reader_->Damaged(kPostingsFile, Concat("holds a block ", block,
                                                    " whose header disagrees with its documents"));
    }
    doc_ = docs_[0];
    return arrow::Status::OK();
  }

  arrow::Status LoadPositions() {
    const PostingBlockHeader& header = headers_[block_];
    uint64_t total = 0;
    for (uint32_t i = 0; i < count_; ++i) {
      position_starts_[i] = static_cast<uint32_t>(total);
      total += frequencies_[i];
    }
    if (header.position_offset > reader_->positions_size() ||
        header.position_bytes > reader_->positions_size() - header.position_offset ||
        total > UINT32_MAX) {
      return reader_->Damaged(kPositionsFile,
                              Concat("lacks the positions of block ", block_, " of a term"));
    }
    const uint8_t* data = reader_->positions_data() + header.position_offset;
    ARROW_RETURN_NOT_OK(reader_->VerifyPositions(data, header.position_bytes));
    position_gaps_.resize(total);
    const uint8_t* p = data;
    if (!UnpackBitsInRuns(&p, data + header.position_bytes, total, position_gaps_.data()) ||
        p != data + header.position_bytes) {
      return reader_->Damaged(kPositionsFile,
                              Concat("holds malformed positions of block ", block_, " of a term"));
    }
    positions_block_ = block_;
    return arrow::Status::OK();
  }

  const InvertedSegmentReader* reader_;
  const uint8_t* record_;
  uint32_t document_frequency_;
  std::vector<PostingBlockHeader> headers_;
  uint32_t block_ = 0;
  uint32_t shallow_ = 0;
  uint32_t index_ = 0;
  uint32_t count_ = 0;
  uint32_t doc_ = kEnd;
  uint32_t docs_[kPostingBlockSize];
  uint32_t frequencies_[kPostingBlockSize];
  uint32_t positions_block_ = UINT32_MAX;
  uint32_t position_starts_[kPostingBlockSize];
  std::vector<uint32_t> position_gaps_;
};

arrow::Result<std::shared_ptr<io::VerifiedFile>> OpenFile(const format::SegmentMeta& segment,
                                                          const SegmentDirectory& directory,
                                                          std::string_view name) {
  return io::VerifiedFile::Open(*directory.storage, directory.path + "/" + std::string(name),
                                Concat("file ", name, " of INVERTED segment ", segment.uuid(),
                                       " (index '", segment.index_name(), "')"),
                                std::string(kRebuildRemedy));
}

arrow::Result<std::shared_ptr<arrow::Buffer>> ReadWhole(io::VerifiedFile* file, bool verify) {
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  ARROW_ASSIGN_OR_RAISE(auto buffer, file->ReadAt(0, size));
  if (buffer->size() != size) return file->CorruptError("is shorter than its checksums say");
  if (verify && size > 0) ARROW_RETURN_NOT_OK(file->VerifyRange(buffer->data(), size));
  return buffer;
}

}  // namespace

arrow::Result<std::unique_ptr<InvertedSegmentReader>> InvertedSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  if (segment.family() != "INVERTED") {
    return InvalidArgument("segment ", segment.uuid(), " is of family ", segment.family(),
                           ", not INVERTED");
  }
  std::unique_ptr<InvertedSegmentReader> reader(new InvertedSegmentReader());
  reader->meta_ = segment;
  ARROW_ASSIGN_OR_RAISE(reader->documents_file_, OpenFile(segment, directory, kDocumentsFile));
  ARROW_ASSIGN_OR_RAISE(reader->terms_file_, OpenFile(segment, directory, kTermsFile));
  ARROW_ASSIGN_OR_RAISE(reader->postings_file_, OpenFile(segment, directory, kPostingsFile));
  ARROW_ASSIGN_OR_RAISE(reader->positions_file_, OpenFile(segment, directory, kPositionsFile));
  ARROW_ASSIGN_OR_RAISE(reader->documents_buffer_, ReadWhole(reader->documents_file_.get(), true));
  ARROW_ASSIGN_OR_RAISE(reader->terms_, ReadWhole(reader->terms_file_.get(), true));
  ARROW_ASSIGN_OR_RAISE(reader->postings_, ReadWhole(reader->postings_file_.get(), false));
  ARROW_ASSIGN_OR_RAISE(reader->positions_, ReadWhole(reader->positions_file_.get(), false));

  auto documents = DocumentTable::Parse(reader->documents_buffer_->data(),
                                        static_cast<uint64_t>(reader->documents_buffer_->size()));
  if (!documents.ok()) return reader->Damaged(kDocumentsFile, documents.status().message());
  reader->documents_ = std::move(*documents);
  ARROW_ASSIGN_OR_RAISE(Roaring fragments, DecodeFragmentBitmap(segment));
  bool fragments_match = fragments.cardinality() == reader->documents_.fragments().size();
  for (const auto& fragment : reader->documents_.fragments()) {
    fragments_match = fragments_match && fragments.contains(fragment.fragment_id);
  }
  if (!fragments_match || reader->documents_.document_count() != segment.num_rows()) {
    return reader->Damaged(
        kDocumentsFile,
        Concat("describes ", reader->documents_.document_count(), " rows of ",
               reader->documents_.fragments().size(), " fragments, which are not the segment's ",
               segment.num_rows(), " rows of ", fragments.cardinality(), " fragments"));
  }
  auto dictionary =
      TermDictionary::Parse(reader->terms_->data(), static_cast<uint64_t>(reader->terms_->size()),
                            reader->postings_size());
  if (!dictionary.ok()) return reader->Damaged(kTermsFile, dictionary.status().message());
  reader->dictionary_ = std::move(*dictionary);
  return reader;
}

arrow::Status InvertedSegmentReader::Damaged(std::string_view file,
                                             std::string_view problem) const {
  return Corrupt("file ", file, " of INVERTED segment ", meta_.uuid(), " (index '",
                 meta_.index_name(), "') is damaged: ", problem, "; ", kRebuildRemedy);
}

arrow::Status InvertedSegmentReader::VerifyPostings(const uint8_t* data, uint64_t size) const {
  if (size == 0) return arrow::Status::OK();
  return postings_file_->VerifyRange(data, static_cast<int64_t>(size));
}

arrow::Status InvertedSegmentReader::VerifyPositions(const uint8_t* data, uint64_t size) const {
  if (size == 0) return arrow::Status::OK();
  return positions_file_->VerifyRange(data, static_cast<int64_t>(size));
}

arrow::Result<std::optional<TermPostings>> InvertedSegmentReader::FindTerm(
    std::string_view term) const {
  std::string problem;
  auto found = dictionary_.Find(term, &problem);
  if (!problem.empty()) return Damaged(kTermsFile, problem);
  return found;
}

arrow::Status InvertedSegmentReader::VisitTerms(
    std::string_view prefix,
    const std::function<bool(std::string_view term, const TermPostings& postings)>& visit) const {
  std::string problem;
  if (!dictionary_.Visit(prefix, visit, &problem)) return Damaged(kTermsFile, problem);
  return arrow::Status::OK();
}

arrow::Result<std::unique_ptr<PostingCursor>> InvertedSegmentReader::OpenPostings(
    const TermPostings& postings) const {
  if (postings.document_frequency == 0 || postings.length == 0 ||
      postings.offset > postings_size() || postings.length > postings_size() - postings.offset) {
    return InvalidArgument("postings at ", postings.offset, " (", postings.length,
                           " bytes) are not of INVERTED segment ", meta_.uuid());
  }
  const uint8_t* record = postings_data() + postings.offset;
  ARROW_RETURN_NOT_OK(VerifyPostings(record, postings.length));
  std::vector<PostingBlockHeader> headers;
  std::string problem;
  if (!DecodePostingHeaders(record, postings.length, postings.document_frequency, has_positions(),
                            &headers, &problem)) {
    return Damaged(kPostingsFile, problem);
  }
  auto cursor = std::make_unique<InvertedPostingCursor>(this, record, postings.document_frequency,
                                                        std::move(headers));
  ARROW_RETURN_NOT_OK(cursor->Start());
  return std::unique_ptr<PostingCursor>(std::move(cursor));
}

arrow::Status InvertedSegmentReader::CheckAll() const {
  TermDictionary::Iterator terms(&dictionary_);
  uint64_t seen = 0;
  uint64_t postings_end = 0;
  while (terms.Next()) {
    ++seen;
    const TermPostings& postings = terms.postings();
    if (postings.offset != postings_end) {
      return Damaged(kTermsFile, Concat("places term ", seen, " at an unexpected offset"));
    }
    postings_end = postings.offset + postings.length;
    ARROW_ASSIGN_OR_RAISE(auto cursor, OpenPostings(postings));
    uint32_t count = 0;
    while (cursor->doc() != PostingCursor::kEnd) {
      if (cursor->term_frequency() > document_length(cursor->doc())) {
        return Damaged(kPostingsFile, Concat("gives a term more occurrences in document ",
                                             cursor->doc(), " than the document's length"));
      }
      if (has_positions()) ARROW_RETURN_NOT_OK(cursor->Positions().status());
      ++count;
      ARROW_RETURN_NOT_OK(cursor->Next());
    }
    if (count != postings.document_frequency) {
      return Damaged(kPostingsFile, Concat("holds ", count,
                                           " documents of a term whose document "
                                           "frequency is ",
                                           postings.document_frequency));
    }
  }
  if (!terms.problem().empty()) return Damaged(kTermsFile, terms.problem());
  if (seen != dictionary_.num_terms() || postings_end != postings_size()) {
    return Damaged(kTermsFile, Concat("lists ", seen, " terms covering ", postings_end,
                                      " bytes of file ", kPostingsFile, " of ", postings_size()));
  }
  return arrow::Status::OK();
}

}  // namespace tessera::index::text
