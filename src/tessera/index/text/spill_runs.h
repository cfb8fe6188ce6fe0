// Spill runs: what a bounded-memory INVERTED build writes when its in-memory postings reach the
// memory limit, and reads back in one k-way merge at the end.
//
// A run is a temporary file in the segment directory (spill-<n>.run, never a segment file: the
// writer removes it, and RequiredFiles never names it) holding terms in byte order, each as one
// or more records of at most kPostingBlockSize documents:
//   [u32 byte length of the rest][varint term length][term][varint documents]
//   per document: [varint gap from the record's previous document (the first: absolute)]
//                 [varint term frequency][when with positions: varint position gaps]
// Runs are written in document order (every document of run i precedes those of run i+1, but
// for one document a spill may cut in two), so a term's postings are its runs' records
// concatenated in run order; the encoder joins a document cut in two.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/index_family.h"

namespace tessera::index::text {

class SegmentFilesWriter;

// Writes one run, buffered.
class RunWriter {
 public:
  static arrow::Result<std::unique_ptr<RunWriter>> Open(const SegmentDirectory& directory,
                                                        const std::string& path,
                                                        bool has_positions);
  // One term's postings: `documents` as (doc, frequency) pairs, `positions` all of them in order.
  arrow::Status Add(std::string_view term, const uint32_t* documents, size_t count,
                    const uint32_t* positions);
  arrow::Status Close();

 private:
  arrow::Status FlushIfFull();

  std::shared_ptr<arrow::io::OutputStream> stream_;
  bool has_positions_ = false;
  std::string buffer_;
  std::string record_;
};

// Reads one run record by record.
class RunReader {
 public:
  static arrow::Result<std::unique_ptr<RunReader>> Open(const SegmentDirectory& directory,
                                                        const std::string& path,
                                                        bool has_positions);
  // Moves to the next record; false at the end.
  arrow::Result<bool> Next();
  std::string_view term() const { return term_; }
  size_t count() const { return docs_.size(); }
  const std::vector<uint32_t>& docs() const { return docs_; }
  const std::vector<uint32_t>& frequencies() const { return frequencies_; }
  const std::vector<uint32_t>& positions() const { return positions_; }  // all, in order

 private:
  arrow::Status Fill(size_t bytes);
  arrow::Status Malformed() const;

  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  std::string path_;
  bool has_positions_ = false;
  int64_t file_size_ = 0;
  int64_t file_offset_ = 0;  // of buffer_'s end
  std::string buffer_;
  size_t start_ = 0;  // of the unread bytes in buffer_
  std::string term_;
  std::vector<uint32_t> docs_;
  std::vector<uint32_t> frequencies_;
  std::vector<uint32_t> positions_;
};

// Writes every term of `runs` (in run order for equal terms) to `out`.
arrow::Status MergeRuns(const std::vector<RunReader*>& runs, bool has_positions,
                        SegmentFilesWriter* out);

}  // namespace tessera::index::text
