// OpenFragments: the fragment readers of one version, opened once and shared by every read.
//
// A read of a fragment maps its data file, checks its footer and decodes each batch's metadata;
// repeated reads of one version (a server's or Python's queries on one snapshot, the several
// parts of one query, repeated scans) would pay that again and fault the mapped pages in again
// after every unmap: for a warm scan, unmapping and faulting in again cost as much as the scan's
// own work, and decoding each batch's metadata again a third more. This keeps one reader per
// (fragment, decoded columns), like a database's buffer pool keeps pages, within a budget.
//
// What it keeps: the mapping of each data file read (address space, and the pages the kernel
// caches anyway, counted in the process's resident memory while mapped) and each decoded
// batch's metadata; on storage that is not memory-mapped a decoded batch holds its bytes. The
// budget (OpenFragmentsBudget) bounds the data-file bytes and the number of readers kept (each
// holds its file open); beyond it the least recently used reader is dropped, and a reader larger
// than the whole budget is never kept. A dropped reader stays valid for as long as a caller
// holds it: callers keep the shared_ptr Get returns for as long as they use the reader. The
// budget is per object, hence per snapshot: a process keeping several snapshots may keep that
// much for each (a process-wide budget, as the segment cache has, is not built yet).
//
// Thread-safe: two first reads of one key at once may both open a reader; the first is kept.
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class DeletionVectors;

// What OpenFragments may keep: at most `bytes` of data files (their sizes) in at most `readers`
// readers.
struct OpenFragmentsBudget {
  uint64_t bytes = 0;
  size_t readers = 0;
  // TESSERA_OPEN_FRAGMENT_BYTES when set (a byte count; 0 keeps no reader), else a quarter of
  // the machine's physical memory; 256 readers, far below the usual limit of open files.
  static OpenFragmentsBudget Default();
};

class OpenFragments {
 public:
  // `deletions`: the version's deletion vectors (must outlive this); null loads each reader's.
  OpenFragments(std::shared_ptr<io::Storage> storage, std::shared_ptr<arrow::Schema> schema,
                const DeletionVectors* deletions,
                OpenFragmentsBudget budget = OpenFragmentsBudget::Default());

  // The reader of `fragment` decoding `columns` (indices into the schema, ascending; all when
  // empty), opened on first use. Errors of FragmentReader::Open are returned, not kept.
  arrow::Result<std::shared_ptr<const FragmentReader>> Get(const format::Fragment& fragment,
                                                           const std::vector<int>& columns) const;

  // What is kept now: the readers and the bytes of their data files.
  size_t kept_readers() const;
  uint64_t kept_bytes() const;

 private:
  using Key = std::pair<uint32_t, std::vector<int>>;
  struct Kept {
    std::shared_ptr<const FragmentReader> reader;
    uint64_t bytes = 0;
    std::list<Key>::iterator recency;
  };
  // Drops least recently used readers until the budget holds, into `dropped` (released by the
  // caller after unlocking); mutex_ held.
  void Evict(std::vector<std::shared_ptr<const FragmentReader>>* dropped) const;

  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<arrow::Schema> schema_;
  const DeletionVectors* deletions_;
  const OpenFragmentsBudget budget_;
  mutable std::mutex mutex_;
  mutable std::map<Key, Kept> readers_;
  mutable std::list<Key> recency_;  // most recently used first
  mutable uint64_t kept_bytes_ = 0;
};

}  // namespace tessera::dataset
