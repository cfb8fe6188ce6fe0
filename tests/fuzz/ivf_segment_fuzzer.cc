// Fuzz target: the files of an IVF segment (index/vector/ivf_family.h): model.bin,
// partitions.arrow and, for IVF_HNSW_*, graphs.arrow. The first input byte chooses the segment
// (bits 0-1: IVF_FLAT, IVF_SQ, IVF_PQ, IVF_RQ; bit 3 set: IVF_HNSW_SQ instead), the file (bit 2:
// model.bin, else partitions.arrow, or graphs.arrow for IVF_HNSW_SQ) and, for model.bin, whether
// to recompute its CRC-32Cs (bit 7) so that mutations reach the decoder behind them; the rest of
// the input replaces that file in the template's segment directory, next to the valid other
// files. The segment is opened through its family and searched: every partition, a small k and
// ef (so graphs are walked), with and without a distance range and a row filter.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tessera/index/index_family.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/ivf_graphs.h"
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector_segment.h"

namespace {

using namespace tessera;

void Search(const index::VectorSegmentReader& reader) {
  // A query of the template's dimension whatever the damaged model claims: a reader that
  // accepted a model of another dimension must refuse the query, not read past it.
  static const std::vector<float> query = {0.5f, -0.25f, 1.0f, 0.0f, 2.0f, -1.5f, 0.75f, 0.1f};
  index::VectorQuery search;
  search.vector = query.data();
  search.dim = static_cast<int>(query.size());
  search.k = 5;
  search.ef = 6;
  search.nprobes = 1000;
  fuzz::Ignore(reader.Search(search));
  search.nprobes = 1;
  search.k = 300;
  search.lower_distance = 0.5f;
  search.upper_distance = 100.0f;
  const std::function<bool(uint64_t)> accept = [](uint64_t row) { return row % 2 == 0; };
  search.accept = &accept;
  fuzz::Ignore(reader.Search(search));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const indexes[] = {"vector_flat", "vector_sq", "vector_pq", "vector_rq"};
  const bool graph = (data[0] & 8) != 0;
  const int which = data[0] & 3;
  const bool model = (data[0] & 4) != 0;
  const bool repair_checksums = (data[0] & 0x80) != 0;
  const format::SegmentMeta& segment =
      fuzz::TemplateSegment(graph ? "vector_hnsw" : indexes[which]);
  const std::string file = model   ? index::vector::kIvfModelFile
                           : graph ? index::vector::kIvfGraphsFile
                                   : index::vector::kIvfPartitionsFile;
  const std::string relative = index::SegmentPath(segment.uuid()) + "/" + file;
  std::string bytes(fuzz::BytesOf(data + 1, size - 1));
  if (model && repair_checksums) {
    // An IVF_HNSW model's own CRC only: the model it wraps keeps its checksums.
    bytes =
        graph || which == 0 ? fuzz::WithTrailingCrc(bytes) : fuzz::WithQuantizedModelCrcs(bytes);
  }
  fuzz::ReplaceTemplateFile(relative, bytes);
  {
    const auto& storage = fuzz::Template().dataset->storage();
    const index::IndexFamily* family = index::FindFamily(segment.family());
    // The model's fingerprint is checked against the segment's metadata: also open with the
    // fingerprint of the damaged bytes, so that a repaired model reaches the decoder.
    format::SegmentMeta refingerprinted = segment;
    if (model) refingerprinted.set_model_fingerprint(index::vector::IvfModel::FingerprintOf(bytes));
    const std::array<const format::SegmentMeta*, 2> metas = {&segment, &refingerprinted};
    for (const format::SegmentMeta* meta : metas) {
      auto reader = family->Open(*meta, index::DirectoryOf(storage, *meta).ValueOrDie());
      if (reader.ok()) Search(*(*reader)->AsVector());
      if (!model) break;
    }
  }
  fuzz::ResetTemplate({relative});
  return 0;
}
