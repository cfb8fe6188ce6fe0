// DeletionVectors: the deletion vectors of one version's fragments, each loaded at most once.
//
// A read of a version subtracts every fragment's deletion vector; several parts of one query
// (planning, scanning, taking candidates, a prefilter) and many queries on one snapshot need the
// same vectors. This loads each on first use and keeps it for the life of the object. The files
// never change (a delete writes a new one), so a loaded vector never goes stale.
//
// Thread-safe: Get may be called from many threads at once; a vector is loaded by one of them.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class DeletionVectors {
 public:
  DeletionVectors(std::shared_ptr<io::Storage> storage,
                  std::shared_ptr<const format::Manifest> manifest);

  // The deleted offsets of fragment `fragment_id` of the manifest (empty when it has none).
  // NotFound for a fragment the manifest lacks; the errors of LoadDeletionVector otherwise.
  arrow::Result<std::shared_ptr<const Roaring>> Get(uint32_t fragment_id) const;
  // The same for a fragment given by its manifest entry.
  arrow::Result<std::shared_ptr<const Roaring>> Get(const format::Fragment& fragment) const;

  // Vectors loaded so far (for tests that prove each is loaded once).
  size_t loaded() const;

 private:
  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<const format::Manifest> manifest_;
  std::unordered_map<uint32_t, int> position_of_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<uint32_t, std::shared_ptr<const Roaring>> loaded_;
};

}  // namespace tessera::dataset
