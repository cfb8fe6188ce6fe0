// OpenFragments: the fragment readers of one version, opened once and shared by every read.
//
// A read of a fragment maps its data file, checks its footer and decodes each batch's metadata;
// repeated reads of one version (a server's or Python's queries on one snapshot, the several
// parts of one query) would pay that again and fault the mapped pages in again after every
// unmap. This keeps one reader per (fragment, decoded columns) for the life of the object.
// FragmentReader is thread-safe, so one reader serves any number of concurrent reads.
//
// What it holds: the mapping of each data file read (address space, and the pages the kernel
// keeps cached anyway) and each decoded batch's metadata. On storage that is not memory-mapped a
// decoded batch holds its bytes; such storage (object stores) must bound this before using it.
// Scans (dataset::MakeScanner) do not use it: a full scan touches every page of every file, and
// keeping them all mapped would keep them all resident for the snapshot's life.
//
// Thread-safe: two first reads of one key at once may both open a reader; the first is kept.
#pragma once

#include <arrow/result.h>

#include <cstdint>
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

class OpenFragments {
 public:
  // `deletions`: the version's deletion vectors (must outlive this); null loads each reader's.
  OpenFragments(std::shared_ptr<io::Storage> storage, std::shared_ptr<arrow::Schema> schema,
                const DeletionVectors* deletions);

  // The reader of `fragment` decoding `columns` (indices into the schema, ascending; all when
  // empty), opened on first use. Errors of FragmentReader::Open are returned, not kept.
  arrow::Result<std::shared_ptr<const FragmentReader>> Get(const format::Fragment& fragment,
                                                           const std::vector<int>& columns) const;

 private:
  using Key = std::pair<uint32_t, std::vector<int>>;
  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<arrow::Schema> schema_;
  const DeletionVectors* deletions_;
  mutable std::mutex mutex_;
  mutable std::map<Key, std::shared_ptr<const FragmentReader>> readers_;
};

}  // namespace tessera::dataset
