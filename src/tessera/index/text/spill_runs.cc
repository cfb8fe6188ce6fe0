#include "tessera/index/text/spill_runs.h"

#include <algorithm>
#include <cstring>
#include <queue>

#include "tessera/index/text/inverted_segment_writer.h"
#include "tessera/index/text/posting_codec.h"
#include "tessera/index/text_segment.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr size_t kWriteBufferBytes = 1 << 20;
constexpr size_t kReadBufferBytes = 64 << 10;

}  // namespace

arrow::Result<std::unique_ptr<RunWriter>> RunWriter::Open(const SegmentDirectory& directory,
                                                          const std::string& path,
                                                          bool has_positions) {
  std::unique_ptr<RunWriter> writer(new RunWriter());
  ARROW_ASSIGN_OR_RAISE(writer->stream_, directory.storage->OpenForWrite(path));
  writer->has_positions_ = has_positions;
  return writer;
}

arrow::Status RunWriter::Add(std::string_view term, const uint32_t* documents, size_t count,
                             const uint32_t* positions) {
  size_t done = 0;
  while (done < count) {
    const size_t take = std::min<size_t>(kPostingBlockSize, count - done);
    record_.clear();
    PutVarint(term.size(), &record_);
    record_.append(term);
    PutVarint(take, &record_);
    uint32_t previous = 0;
    for (size_t i = done; i < done + take; ++i) {
      const uint32_t doc = documents[2 * i];
      const uint32_t frequency = documents[2 * i + 1];
      PutVarint(doc - previous, &record_);
      previous = doc;
      PutVarint(frequency, &record_);
      if (has_positions_) {
        uint32_t last = 0;
        for (uint32_t k = 0; k < frequency; ++k) {
          PutVarint(positions[k] - last, &record_);
          last = positions[k];
        }
        positions += frequency;
      }
    }
    const uint32_t length = static_cast<uint32_t>(record_.size());
    char bytes[4];
    std::memcpy(bytes, &length, 4);
    buffer_.append(bytes, 4);
    buffer_.append(record_);
    ARROW_RETURN_NOT_OK(FlushIfFull());
    done += take;
  }
  return arrow::Status::OK();
}

arrow::Status RunWriter::FlushIfFull() {
  if (buffer_.size() < kWriteBufferBytes) return arrow::Status::OK();
  ARROW_RETURN_NOT_OK(stream_->Write(buffer_.data(), static_cast<int64_t>(buffer_.size())));
  buffer_.clear();
  return arrow::Status::OK();
}

arrow::Status RunWriter::Close() {
  if (!buffer_.empty()) {
    ARROW_RETURN_NOT_OK(stream_->Write(buffer_.data(), static_cast<int64_t>(buffer_.size())));
  }
  std::string().swap(buffer_);
  return stream_->Close();
}

arrow::Result<std::unique_ptr<RunReader>> RunReader::Open(const SegmentDirectory& directory,
                                                          const std::string& path,
                                                          bool has_positions) {
  std::unique_ptr<RunReader> reader(new RunReader());
  ARROW_ASSIGN_OR_RAISE(reader->file_, directory.storage->OpenForRead(path));
  ARROW_ASSIGN_OR_RAISE(reader->file_size_, reader->file_->GetSize());
  reader->path_ = path;
  reader->has_positions_ = has_positions;
  return reader;
}

arrow::Status RunReader::Malformed() const {
  return Error(ErrorKind::kInternal, "spill run ", path_,
               " of an INVERTED build is malformed (it was written by this build)");
}

// Makes at least `bytes` unread bytes available, unless the file ends first.
arrow::Status RunReader::Fill(size_t bytes) {
  if (buffer_.size() - start_ >= bytes) return arrow::Status::OK();
  buffer_.erase(0, start_);
  start_ = 0;
  const size_t want = std::max(bytes, kReadBufferBytes);
  const int64_t left = file_size_ - file_offset_;
  const int64_t read = std::min<int64_t>(left, static_cast<int64_t>(want - buffer_.size()));
  if (read <= 0) return arrow::Status::OK();
  const size_t old = buffer_.size();
  buffer_.resize(old + static_cast<size_t>(read));
  ARROW_ASSIGN_OR_RAISE(int64_t got, file_->ReadAt(file_offset_, read, buffer_.data() + old));
  if (got != read) return Malformed();
  file_offset_ += read;
  return arrow::Status::OK();
}

arrow::Result<bool> RunReader::Next() {
  ARROW_RETURN_NOT_OK(Fill(4));
  if (buffer_.size() - start_ == 0) return false;
  if (buffer_.size() - start_ < 4) return Malformed();
  uint32_t length = 0;
  std::memcpy(&length, buffer_.data() + start_, 4);
  ARROW_RETURN_NOT_OK(Fill(4 + static_cast<size_t>(length)));
  if (buffer_.size() - start_ < 4 + static_cast<size_t>(length)) return Malformed();
  const auto* p = reinterpret_cast<const uint8_t*>(buffer_.data() + start_ + 4);
  const uint8_t* end = p + length;
  start_ += 4 + length;
  uint64_t term_length = 0;
  uint64_t count = 0;
  if (!GetVarint(&p, end, &term_length) || term_length > static_cast<uint64_t>(end - p)) {
    return Malformed();
  }
  term_.assign(reinterpret_cast<const char*>(p), term_length);
  p += term_length;
  if (!GetVarint(&p, end, &count)) return Malformed();
  docs_.resize(count);
  frequencies_.resize(count);
  positions_.clear();
  uint32_t doc = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t gap = 0;
    uint32_t frequency = 0;
    if (!GetVarint32(&p, end, &gap) || !GetVarint32(&p, end, &frequency)) return Malformed();
    doc += gap;
    docs_[i] = doc;
    frequencies_[i] = frequency;
    if (has_positions_) {
      uint32_t position = 0;
      for (uint32_t k = 0; k < frequency; ++k) {
        uint32_t delta = 0;
        if (!GetVarint32(&p, end, &delta)) return Malformed();
        position += delta;
        positions_.push_back(position);
      }
    }
  }
  if (p != end) return Malformed();
  return true;
}

arrow::Status MergeRuns(const std::vector<RunReader*>& runs, bool has_positions,
                        SegmentFilesWriter* out) {
  // The runs positioned on a record, smallest (term, run) first.
  auto later = [&](size_t a, size_t b) {
    const int order = runs[a]->term().compare(runs[b]->term());
    return order != 0 ? order > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < runs.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(bool has, runs[i]->Next());
    if (has) heap.push(i);
  }
  std::string term;
  while (!heap.empty()) {
    term.assign(runs[heap.top()]->term());
    out->BeginTerm(term);
    while (!heap.empty() && runs[heap.top()]->term() == term) {
      const size_t index = heap.top();
      heap.pop();
      RunReader* run = runs[index];
      bool has = true;
      while (has && run->term() == term) {
        const uint32_t* positions = has_positions ? run->positions().data() : nullptr;
        for (size_t i = 0; i < run->count(); ++i) {
          out->Add(run->docs()[i], run->frequencies()[i], positions);
          if (positions != nullptr) positions += run->frequencies()[i];
        }
        ARROW_ASSIGN_OR_RAISE(has, run->Next());
      }
      if (has) heap.push(index);
    }
    ARROW_RETURN_NOT_OK(out->EndTerm());
  }
  return arrow::Status::OK();
}

}  // namespace tessera::index::text
