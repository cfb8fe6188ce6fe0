#include "tessera/index/text/inverted_files.h"

#include <algorithm>
#include <bit>

#include "tessera/dataset/dataset.h"
#include "tessera/index/text/fixed_width.h"
#include "tessera/io/checksummed_output.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr uint32_t kDocumentsMagic = 0x434f4454;  // "TDOC"
constexpr uint32_t kDocumentsVersion = 1;
constexpr size_t kHeaderBytes = 6 * 4 + 8;
constexpr size_t kBufferBytes = 1 << 20;

}  // namespace

std::vector<std::string_view> InvertedFileNames() {
  return {kTermsFile, kPostingsFile, kPositionsFile, kDocumentsFile};
}

arrow::Result<std::unique_ptr<FileOutput>> FileOutput::Open(const SegmentDirectory& directory,
                                                            std::string_view name) {
  std::unique_ptr<FileOutput> output(new FileOutput());
  output->storage_ = directory.storage;
  output->path_ = directory.path + "/" + std::string(name);
  ARROW_ASSIGN_OR_RAISE(output->stream_,
                        io::OpenChecksummedForWrite(*directory.storage, output->path_));
  output->buffer_.reserve(kBufferBytes);
  return output;
}

void FileOutput::Append(std::string_view bytes) {
  size_ += bytes.size();
  if (buffer_.size() + bytes.size() > kBufferBytes) Flush();
  if (bytes.size() >= kBufferBytes) {
    if (status_.ok()) status_ = stream_->Write(bytes.data(), static_cast<int64_t>(bytes.size()));
    return;
  }
  buffer_.append(bytes);
}

void FileOutput::Flush() {
  if (!buffer_.empty() && status_.ok()) {
    status_ = stream_->Write(buffer_.data(), static_cast<int64_t>(buffer_.size()));
  }
  buffer_.clear();
}

arrow::Status FileOutput::Close() {
  Flush();
  ARROW_RETURN_NOT_OK(status_);
  ARROW_RETURN_NOT_OK(stream_->Close());
  return storage_->Sync(path_);
}

std::string EncodeDocumentTable(const std::vector<FragmentRows>& fragments,
                                const std::vector<uint32_t>& lengths, bool has_positions) {
  uint32_t all = 0;
  uint64_t total = 0;
  for (uint32_t length : lengths) {
    all |= length;
    total += length;
  }
  const uint32_t width = all == 0 ? 0 : 32 - static_cast<uint32_t>(std::countl_zero(all));
  std::string out;
  PutFixed<uint32_t>(kDocumentsMagic, &out);
  PutFixed<uint32_t>(kDocumentsVersion, &out);
  PutFixed<uint32_t>(has_positions ? 1 : 0, &out);
  PutFixed<uint32_t>(static_cast<uint32_t>(lengths.size()), &out);
  PutFixed<uint32_t>(static_cast<uint32_t>(fragments.size()), &out);
  PutFixed<uint32_t>(width, &out);
  PutFixed<uint64_t>(total, &out);
  for (const auto& fragment : fragments) {
    PutFixed<uint32_t>(fragment.fragment_id, &out);
    PutFixed<uint32_t>(fragment.rows, &out);
  }
  const size_t start = out.size();
  out.resize(start + (lengths.size() * width + 7) / 8 + 8, '\0');
  auto* target = reinterpret_cast<uint8_t*>(out.data() + start);
  uint64_t bit = 0;
  for (uint32_t length : lengths) {
    uint64_t word;
    std::memcpy(&word, target + bit / 8, sizeof(word));
    word |= static_cast<uint64_t>(length) << (bit % 8);
    std::memcpy(target + bit / 8, &word, sizeof(word));
    bit += width;
  }
  return out;
}

arrow::Result<DocumentTable> DocumentTable::Parse(const uint8_t* data, uint64_t size) {
  if (size < kHeaderBytes) return Corrupt("it is shorter than its header");
  if (GetFixed<uint32_t>(data) != kDocumentsMagic) return Corrupt("it lacks its magic number");
  if (GetFixed<uint32_t>(data + 4) != kDocumentsVersion) {
    return Corrupt("it has an unknown version ", GetFixed<uint32_t>(data + 4));
  }
  DocumentTable table;
  const uint32_t flags = GetFixed<uint32_t>(data + 8);
  table.has_positions_ = (flags & 1) != 0;
  table.document_count_ = GetFixed<uint32_t>(data + 12);
  const uint32_t num_fragments = GetFixed<uint32_t>(data + 16);
  table.width_ = GetFixed<uint32_t>(data + 20);
  table.total_length_ = GetFixed<uint64_t>(data + 24);
  if (flags > 1 || table.width_ > 32 || table.document_count_ == UINT32_MAX) {
    return Corrupt("its header is malformed");
  }
  table.mask_ = table.width_ == 32 ? 0xffffffffull : ((uint64_t{1} << table.width_) - 1);
  const uint64_t lengths_bytes =
      (static_cast<uint64_t>(table.document_count_) * table.width_ + 7) / 8 + 8;
  if (size != kHeaderBytes + uint64_t{8} * num_fragments + lengths_bytes) {
    return Corrupt("its size ", size, " does not match its header (", table.document_count_,
                   " documents in ", num_fragments, " fragments)");
  }
  uint64_t documents = 0;
  const uint8_t* p = data + kHeaderBytes;
  table.fragments_.reserve(num_fragments);
  for (uint32_t i = 0; i < num_fragments; ++i, p += 8) {
    FragmentRows fragment{GetFixed<uint32_t>(p), GetFixed<uint32_t>(p + 4),
                          static_cast<uint32_t>(documents)};
    if (i > 0 && fragment.fragment_id <= table.fragments_.back().fragment_id) {
      return Corrupt("its fragment table is not in ascending fragment order");
    }
    documents += fragment.rows;
    table.fragments_.push_back(fragment);
  }
  if (documents != table.document_count_) {
    return Corrupt("its fragments hold ", documents, " rows but it counts ", table.document_count_,
                   " documents");
  }
  table.lengths_ = p;
  uint64_t total = 0;
  for (uint32_t doc = 0; doc < table.document_count_; ++doc) total += table.length(doc);
  if (total != table.total_length_) {
    return Corrupt("its document lengths sum to ", total, ", not to its total ",
                   table.total_length_);
  }
  return table;
}

uint64_t DocumentTable::row_address(uint32_t doc) const {
  auto it = std::upper_bound(fragments_.begin(), fragments_.end(), doc,
                             [](uint32_t d, const FragmentRows& f) { return d < f.first_doc; });
  --it;
  return dataset::MakeRowAddress(it->fragment_id, doc - it->first_doc);
}

std::optional<uint32_t> DocumentTable::document_of(uint64_t row_address) const {
  const uint32_t fragment = dataset::FragmentOf(row_address);
  const uint32_t offset = static_cast<uint32_t>(row_address & 0xffffffffu);
  auto it = std::lower_bound(fragments_.begin(), fragments_.end(), fragment,
                             [](const FragmentRows& f, uint32_t id) { return f.fragment_id < id; });
  if (it == fragments_.end() || it->fragment_id != fragment || offset >= it->rows) {
    return std::nullopt;
  }
  return it->first_doc + offset;
}

}  // namespace tessera::index::text
