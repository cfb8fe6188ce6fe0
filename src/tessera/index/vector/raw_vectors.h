// RawVectors: the raw vectors of some fragments, addressed by row address: for re-ranking the
// candidates of quantized indexes with exact distances (refinement), and for IVF_FLAT builds,
// which gather each partition's vectors from the data files instead of holding a copy of the
// column.
//
// Opening decodes only the metadata of the fragments' record batches: data files are
// memory-mapped and their batches are zero-copy, so a lookup touches the pages of the rows
// read and nothing else. float32 rows are returned in place; float16 rows are converted into
// the caller's buffer (exactly, as everywhere in tessera). Immutable after Open: lookups may
// run on many threads.
//
// External fragments (Parquet files, docs/external.md) are decoded, not mapped: opening them
// for a few lookups would decode the whole column. Fragments on object storage are not mapped
// either: opening them would fetch the whole column. Unless every row is wanted (verify_all, a
// build), the rows of both are read on demand instead: FetchOnDemand reads the batches a set of
// lookups needs, each once (on object storage concurrently, io::ParallelReads), and Find looks
// them up in what it returned.
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::index::vector {

class RawVectors {
 public:
  // The vector column `column_index` of `schema` in `fragments`. With `verify_all`, every
  // batch is verified against its checksums now (a build that reads every row); otherwise Find
  // verifies each row it returns (refinement, which reads a few rows).
  static arrow::Result<RawVectors> Open(const io::Storage& storage,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        int column_index,
                                        const std::vector<format::Fragment>& fragments,
                                        bool verify_all = false);

  RawVectors() = default;
  // Movable, not copyable: fragments_by_id_ points into fragments_.
  RawVectors(RawVectors&&) = default;
  RawVectors& operator=(RawVectors&&) = default;
  RawVectors(const RawVectors&) = delete;
  RawVectors& operator=(const RawVectors&) = delete;

  // The vectors of the rows of external fragments among some addresses, read together.
  class Fetched {
   public:
    // The row's dim floats; null for a row without a vector or not fetched.
    const float* Find(uint64_t address) const;

   private:
    friend class RawVectors;
    std::unordered_map<uint64_t, int64_t> offsets_;  // address -> first float; -1: null row
    std::vector<float> values_;
  };

  // True when some opened fragment is read on demand: Find needs FetchOnDemand.
  bool reads_on_demand() const { return reads_on_demand_; }
  // Reads the rows among `addresses` (ascending) that lie in fragments read on demand: the
  // batches holding them, each once.
  arrow::Result<Fetched> FetchOnDemand(const std::vector<uint64_t>& addresses) const;

  // dim floats of the row at `address`: a pointer into the data file (float32), into `fetched`
  // (rows of fragments read on demand) or into `scratch` (float16, converted; scratch
  // holds at least dim floats). Null when the row is not in the opened fragments, is beyond
  // them, has no vector (null) or was not fetched. Corrupt, naming the data file, when the
  // row's bytes fail their checksums.
  arrow::Result<const float*> Find(uint64_t address, float* scratch,
                                   const Fetched* fetched = nullptr) const;

  // Asks the CPU to start loading the row at `address` (float32 columns), so that a Find a few
  // rows later does not wait for memory: refinement reads rows in random order.
  void Prefetch(uint64_t address) const;
  // Asks for the first cache line of the row only: enough to start translating its address.
  void PrefetchFirstLine(uint64_t address) const;

  int dim() const { return dim_; }

 private:
  struct Batch {
    std::shared_ptr<arrow::FixedSizeListArray> array;
    const float* f32 = nullptr;     // row 0, float32 columns
    const uint16_t* f16 = nullptr;  // row 0, float16 columns
    bool may_have_nulls = false;
    bool verified = false;  // every byte checked at Open
  };
  struct Fragment {
    std::shared_ptr<dataset::FragmentReader> reader;  // keeps the mapping alive
    uint64_t rows_per_batch = 0;
    std::vector<Batch> batches;  // empty for an external fragment read on demand
    bool on_demand = false;
  };

  // The opened fragment of id `id`; null when there is none.
  const Fragment* FindFragment(uint32_t id) const {
    if (!fragments_by_id_.empty() || fragments_.empty()) {
      return id < fragments_by_id_.size() ? fragments_by_id_[id] : nullptr;
    }
    auto found = fragments_.find(id);
    return found == fragments_.end() ? nullptr : &found->second;
  }
  // The batch of `fragment` holding the row at `offset` and the row's index in it; null when
  // there is none.
  static const Batch* Locate(const Fragment& fragment, uint32_t offset, int64_t* row);
  // Locate in the fragment of `address`.
  const Batch* Locate(uint64_t address, int64_t* row) const;

  int dim_ = 0;
  bool reads_on_demand_ = false;
  bool remote_ = false;  // some fragment read on demand is on object storage
  std::unordered_map<uint32_t, Fragment> fragments_;
  // fragments_ by id (null where none), where ids are small: refinement finds a fragment three
  // times a row, and a hash lookup each time cost as much as the row's distance. Points into
  // fragments_, whose elements never move.
  std::vector<const Fragment*> fragments_by_id_;
};

}  // namespace tessera::index::vector
