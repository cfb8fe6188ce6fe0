#include "tessera/index/vector/product_quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

constexpr int kCodebookSamplesPerEntry = 256;
constexpr size_t kHeaderWords = 3;
// In the header's bits word: the codes are of the vectors themselves (options.residual false).
constexpr uint32_t kVectorCodesFlag = 1u << 16;

// Sub-vector j of `count` vectors: count × sub_dim floats, contiguous.
void ExtractSubVectors(const float* vectors, int64_t count, int dim, int j, int sub_dim,
                       float* out) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(out + i * sub_dim, vectors + i * dim + j * sub_dim,
                sizeof(float) * static_cast<size_t>(sub_dim));
  }
}

// out = a + b over m × kRow entries. Rows of a constant length and unaliased pointers: a loop
// the compiler vectorizes at -O2 (a length known only at run time left it scalar, a fifth of a
// batch search's time).
template <int kRow>
void AddTables(const float* __restrict__ a, const float* __restrict__ b, int m,
               float* __restrict__ out) {
  for (int j = 0; j < m; ++j) {
    const size_t row = static_cast<size_t>(j) * kRow;
    for (int c = 0; c < kRow; ++c) out[row + c] = a[row + c] + b[row + c];
  }
}

// out[c × rows + r] = in[r × columns + c]: a byte matrix transposed. A block of `rows` codes of
// `code_size` bytes goes row-major → stored (pair-major, product_quantizer.h) with (rows,
// code_size), and back with (code_size, rows).
void TransposeBytes(const uint8_t* in, int rows, int columns, uint8_t* out) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) out[c * rows + r] = in[r * columns + c];
  }
}

}  // namespace

class ProductQueryScorer final : public QueryScorer {
 public:
  ProductQueryScorer(const ProductQuantizer& pq, const IvfModel& ivf, const float* query)
      : pq_(pq), ivf_(ivf), query_(query, query + ivf.dim()) {
    const int entries = pq.codebook_size();
    const int sub_dim = pq.sub_dim();
    table_.resize(static_cast<size_t>(pq.num_sub_vectors()) * entries);
    if (!pq.residual() && ivf.metric() == Metric::kL2) {
      // Codes of the vectors: ‖q_j − codebook_j[c]‖², the same for every partition.
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        simd::ActiveKernels().l2_squared_transposed(query_.data() + j * sub_dim, pq.columns(j),
                                                    entries, entries, sub_dim,
                                                    table_.data() + j * entries);
      }
    } else if (ivf.metric() == Metric::kL2 && !pq.partition_terms_.empty()) {
      // −2 q_j · codebook_j[c]: the query's part, the same for every partition.
      query_table_.resize(table_.size());
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        simd::ActiveKernels().inner_product_transposed(query_.data() + j * sub_dim, pq.columns(j),
                                                       entries, entries, sub_dim,
                                                       query_table_.data() + j * entries);
      }
      for (float& entry : query_table_) entry *= -2.0f;
    } else if (ivf.metric() != Metric::kL2) {
      // −q_j · codebook_j[c]: the same for every partition.
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        simd::ActiveKernels().inner_product_transposed(query_.data() + j * sub_dim, pq.columns(j),
                                                       entries, entries, sub_dim,
                                                       table_.data() + j * entries);
      }
      for (float& entry : table_) entry = -entry;
    }
    // A table the same for every partition is quantized once.
    if (pq.bits() == 4 && !PerPartitionTable()) QuantizeTable();
  }

  void Score(int partition, const uint8_t* codes, int64_t count, float* out) override {
    if (pq_.bits() == 4) {
      // One query's scan is a group of one (ProductQuantizer::ScoreQueries).
      QueryScorer* self = this;
      pq_.ScoreQueries(&self, 1, partition, codes, count, &out);
      return;
    }
    const float bias = PrepareTable(partition);
    simd::ActiveKernels().pq_adc_batch(codes, count, pq_.num_sub_vectors(), table_.data(), out);
    if (bias != 0) {
      for (int64_t i = 0; i < count; ++i) out[i] += bias;
    }
  }

 private:
  // Residual codes under l2: a table per partition.
  bool PerPartitionTable() const { return pq_.residual() && ivf_.metric() == Metric::kL2; }

  // Makes table_ partition `partition`'s table (and its bytes, 4 bits); returns what every row's
  // distance adds to it.
  float PrepareTable(int partition) {
    const int dim = ivf_.dim();
    const int entries = pq_.codebook_size();
    if (!pq_.residual()) return ivf_.metric() == Metric::kCosine ? 1.0f : 0.0f;
    if (ivf_.metric() != Metric::kL2) return CentroidDistanceTerm(ivf_, query_.data(), partition);
    const float* centroid = ivf_.centroids().data() + static_cast<size_t>(partition) * dim;
    if (partition != table_partition_) {
      if (!query_table_.empty()) {
        const float* terms =
            pq_.partition_terms_.data() + static_cast<size_t>(partition) * table_.size();
        if (entries == 256) {
          AddTables<256>(query_table_.data(), terms, pq_.num_sub_vectors(), table_.data());
        } else {
          AddTables<16>(query_table_.data(), terms, pq_.num_sub_vectors(), table_.data());
        }
      } else {
        // ‖(q − c_p)_j − codebook_j[c]‖² for every j and c.
        residual_.resize(static_cast<size_t>(dim));
        for (int d = 0; d < dim; ++d) residual_[d] = query_[d] - centroid[d];
        const int sub_dim = pq_.sub_dim();
        for (int j = 0; j < pq_.num_sub_vectors(); ++j) {
          simd::ActiveKernels().l2_squared_transposed(residual_.data() + j * sub_dim,
                                                      pq_.columns(j), entries, entries, sub_dim,
                                                      table_.data() + j * entries);
        }
      }
      if (pq_.bits() == 4) QuantizeTable();
      table_partition_ = partition;
    }
    return query_table_.empty() ? 0.0f
                                : simd::ActiveKernels().l2_squared(query_.data(), centroid, dim);
  }

 public:
  // 4 bits: what ProductQuantizer::ScoreQueries needs of this query at `partition`: its byte
  // tables, and the offset and step that scale their sums back (product_quantizer.h).
  const uint8_t* FastScanTables(int partition, float* offset, float* step) {
    const float bias = PrepareTable(partition);  // may quantize anew: lut_base_ after it
    *offset = bias + lut_base_;
    *step = lut_step_;
    return luts_.data();
  }

  // 4 bits: the rows after the last whole block of `count`, if any. The partial block is widened
  // to 32 rows and scored like the others. Its bytes are copied with room behind them, so that
  // each pair's `tail` bytes move as one fixed 32-byte copy (inlined; a call per pair cost 6 % of
  // a batch search): rows from `tail` on hold whatever followed and are not reported.
  void ScanPartialBlock(const uint8_t* codes, int64_t count, float offset, float* out) {
    const int64_t blocks = count / kPq4BlockRows;
    const int tail = static_cast<int>(count - blocks * kPq4BlockRows);
    if (tail == 0) return;
    const int code_size = pq_.code_size();
    const uint8_t* partial = codes + blocks * kPq4BlockRows * code_size;
    const size_t partial_bytes = static_cast<size_t>(tail) * code_size;
    widened_.resize(partial_bytes + kPq4BlockRows);
    std::memcpy(widened_.data(), partial, partial_bytes);
    padded_.resize(static_cast<size_t>(kPq4BlockRows) * code_size);
    for (int p = 0; p < code_size; ++p) {
      std::memcpy(padded_.data() + p * kPq4BlockRows, widened_.data() + p * tail, kPq4BlockRows);
    }
    float scores[kPq4BlockRows];
    simd::ActiveKernels().pq4_fast_scan(padded_.data(), 1, code_size, luts_.data(), offset,
                                        lut_step_, scores);
    std::memcpy(out + blocks * kPq4BlockRows, scores, sizeof(float) * tail);
  }

 private:
  // 4 bits: table_ in bytes.
  void QuantizeTable() {
    const int m = pq_.num_sub_vectors();
    lowest_.resize(static_cast<size_t>(m));
    luts_.resize(static_cast<size_t>(m) * 16);
    const float widest =
        simd::ActiveKernels().pq4_quantize_tables(table_.data(), m, luts_.data(), lowest_.data());
    lut_base_ = 0.0f;
    for (float low : lowest_) lut_base_ += low;
    lut_step_ = widest > 0.0f ? widest / 255.0f : 0.0f;
    if (!std::isfinite(widest) || !std::isfinite(lut_base_)) {
      // A table past float's range (a query of huge values): every row is infinitely far
      // rather than NaN (which no search keeps); the 8-bit sums would give ±∞ or NaN.
      lut_base_ = INFINITY;
      lut_step_ = 0.0f;
    }
  }

  const ProductQuantizer& pq_;
  const IvfModel& ivf_;
  std::vector<float> query_;
  std::vector<float> residual_;
  std::vector<float> query_table_;  // l2 with precomputed terms: m × 2^bits entries −2 q_j·e
  std::vector<float> table_;        // m × 2^bits
  int table_partition_ = -1;
  // 4 bits: table_ in bytes (m × 16) and what a sum of them stands for, lut_base_ + lut_step_ ×
  // sum.
  std::vector<uint8_t> luts_;
  std::vector<float> lowest_;  // each sub-quantizer's smallest entry
  float lut_base_ = 0.0f;
  float lut_step_ = 0.0f;
  std::vector<uint8_t> widened_;  // a partial block's bytes, then 32 bytes of room
  std::vector<uint8_t> padded_;   // a partial block widened to 32 rows
};

arrow::Result<ProductQuantizer> ProductQuantizer::Train(const IvfModel& ivf, const float* sample,
                                                        const int32_t* partitions, int64_t count,
                                                        const ProductQuantizerOptions& options) {
  const int dim = ivf.dim();
  const int m = options.num_sub_vectors;
  if (m < 1 || dim % m != 0) {
    return InvalidArgument("num_sub_vectors ", m, " does not divide the dimension ", dim);
  }
  if (options.num_bits != 8 && options.num_bits != 4) {
    return InvalidArgument("product quantization takes 8 or 4 bits per code, not ",
                           options.num_bits);
  }
  if (options.num_bits == 4 && !FourBitSubVectorsValid(m)) {
    return InvalidArgument("4-bit product quantization needs an even number of sub-vectors of at ",
                           "most ", kPq4MaxSubVectors, ", got ", m);
  }
  if (count < 1) return InvalidArgument("product quantization needs at least one sample vector");
  ProductQuantizer pq;
  pq.dim_ = dim;
  pq.num_sub_vectors_ = m;
  pq.sub_dim_ = dim / m;
  pq.bits_ = options.num_bits;
  pq.residual_ = options.residual;
  const int entries = pq.codebook_size();
  pq.codebooks_.assign(static_cast<size_t>(m) * entries * pq.sub_dim_, 0.0f);
  // A codebook's centroids in a few dimensions need far fewer points than the IVF partitions:
  // codebooks train on an evenly spread subset of at most kCodebookSamplesPerEntry per entry.
  std::vector<float> subset;
  std::vector<int32_t> subset_partitions;
  const int64_t most = int64_t{kCodebookSamplesPerEntry} * entries;
  if (count > most) {
    subset.resize(static_cast<size_t>(most) * dim);
    subset_partitions.resize(static_cast<size_t>(most));
    for (int64_t i = 0; i < most; ++i) {
      const int64_t row = i * count / most;
      std::memcpy(subset.data() + i * dim, sample + row * dim, sizeof(float) * dim);
      subset_partitions[i] = partitions[row];
    }
    sample = subset.data();
    partitions = subset_partitions.data();
    count = most;
  }
  std::vector<float> residuals;
  if (pq.residual_) residuals = ivf.Residuals(sample, partitions, count);
  const float* source = pq.residual_ ? residuals.data() : sample;
  // One k-means per sub-vector, independent of each other: they run in parallel (each one's
  // own loops then run serially, so the result does not depend on the thread count).
  ARROW_RETURN_NOT_OK(util::ParallelFor(m, [&](int64_t first, int64_t last) -> arrow::Status {
    std::vector<float> sub(static_cast<size_t>(count) * pq.sub_dim_);
    for (int64_t j = first; j < last; ++j) {
      ExtractSubVectors(source, count, dim, static_cast<int>(j), pq.sub_dim_, sub.data());
      KMeansOptions kmeans;
      kmeans.num_clusters = static_cast<int>(std::min<int64_t>(entries, count));
      kmeans.max_iterations = options.max_iterations;
      kmeans.seed = options.seed + static_cast<uint64_t>(j);
      kmeans.metric = Metric::kL2;
      // Seeds where the points are dense: the codebook's error is then smallest where most
      // rows and the true neighbours of most queries lie (kmeans.h). FAISS's codebook training,
      // seeded with k-means++ instead of its random points, loses about 0.03 of recall@10 on
      // real text embeddings; here random points gained up to 0.018 on synthetic mixtures.
      kmeans.seeding = KMeansSeeding::kRandomPoints;
      ARROW_ASSIGN_OR_RAISE(KMeansResult clusters,
                            TrainKMeans(sub.data(), count, pq.sub_dim_, kmeans));
      // With fewer sample vectors than codebook entries the rest repeat entry 0: never nearer.
      float* codebook = pq.codebooks_.data() + static_cast<size_t>(j) * entries * pq.sub_dim_;
      for (int c = 0; c < entries; ++c) {
        const int source = c < clusters.num_clusters ? c : 0;
        std::memcpy(codebook + static_cast<size_t>(c) * pq.sub_dim_,
                    clusters.centroids.data() + static_cast<size_t>(source) * pq.sub_dim_,
                    sizeof(float) * static_cast<size_t>(pq.sub_dim_));
      }
    }
    return arrow::Status::OK();
  }));
  pq.TransposeCodebooks();
  return pq;
}

arrow::Result<ProductQuantizer> ProductQuantizer::Deserialize(std::string_view bytes, int dim,
                                                              std::string_view what) {
  uint32_t header[kHeaderWords] = {0, 0, 0};
  if (bytes.size() >= sizeof(header)) std::memcpy(header, bytes.data(), sizeof(header));
  const uint32_t m = header[1];
  const uint32_t bits = header[2] & ~kVectorCodesFlag;
  const bool bits_ok = bits == 8 || (bits == 4 && m <= static_cast<uint32_t>(kPq4MaxSubVectors) &&
                                     FourBitSubVectorsValid(static_cast<int>(m)));
  if (bytes.size() < sizeof(header) || header[0] != static_cast<uint32_t>(dim) || m == 0 ||
      dim % static_cast<int>(m) != 0 || !bits_ok ||
      bytes.size() !=
          sizeof(header) + sizeof(float) * (size_t{1} << bits) * static_cast<size_t>(dim)) {
    return Corrupt(what, " does not hold a product quantizer of dimension ", dim, " (",
                   bytes.size(), " bytes, dimension ", header[0], ", ", m, " sub-vectors, ", bits,
                   " bits, flags ", header[2] & ~0xffffu, ")");
  }
  ProductQuantizer pq;
  pq.dim_ = dim;
  pq.num_sub_vectors_ = static_cast<int>(m);
  pq.sub_dim_ = dim / pq.num_sub_vectors_;
  pq.bits_ = static_cast<int>(bits);
  pq.residual_ = (header[2] & kVectorCodesFlag) == 0;
  pq.codebooks_.resize(static_cast<size_t>(pq.codebook_size()) * dim);
  std::memcpy(pq.codebooks_.data(), bytes.data() + sizeof(header),
              sizeof(float) * pq.codebooks_.size());
  for (float value : pq.codebooks_) {
    if (!std::isfinite(value)) return Corrupt(what, " holds a non-finite codebook entry");
  }
  pq.TransposeCodebooks();
  return pq;
}

void ProductQuantizer::TransposeCodebooks() {
  columns_.resize(codebooks_.size());
  for (int j = 0; j < num_sub_vectors_; ++j) {
    TransposeRows(codebook(j), codebook_size(), sub_dim_,
                  columns_.data() + static_cast<size_t>(j) * codebook_size() * sub_dim_);
  }
}

std::string ProductQuantizer::Serialize() const {
  const uint32_t header[kHeaderWords] = {
      static_cast<uint32_t>(dim_), static_cast<uint32_t>(num_sub_vectors_),
      static_cast<uint32_t>(bits_) | (residual_ ? 0u : kVectorCodesFlag)};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  bytes.append(reinterpret_cast<const char*>(codebooks_.data()), codebooks_.size() * sizeof(float));
  return bytes;
}

arrow::Status ProductQuantizer::Encode(const IvfModel& ivf, const float* vectors,
                                       const int32_t* partitions, int64_t count,
                                       uint8_t* codes) const {
  if (count == 0) return arrow::Status::OK();
  std::vector<float> residuals;
  if (residual_) residuals = ivf.Residuals(vectors, partitions, count);
  const float* source = residual_ ? residuals.data() : vectors;
  std::vector<float> sub(static_cast<size_t>(count) * sub_dim_);
  std::vector<int32_t> nearest(static_cast<size_t>(count));
  const int code_bytes = code_size();
  if (bits_ == 4) std::memset(codes, 0, static_cast<size_t>(count) * code_bytes);
  for (int j = 0; j < num_sub_vectors_; ++j) {
    ExtractSubVectors(source, count, dim_, j, sub_dim_, sub.data());
    ARROW_RETURN_NOT_OK(AssignNearest(Metric::kL2, sub.data(), count, codebook(j), codebook_size(),
                                      sub_dim_, nearest.data()));
    for (int64_t i = 0; i < count; ++i) {
      if (bits_ == 8) {
        codes[i * code_bytes + j] = static_cast<uint8_t>(nearest[i]);
      } else {
        codes[i * code_bytes + j / 2] |= static_cast<uint8_t>(nearest[i] << (4 * (j % 2)));
      }
    }
  }
  return arrow::Status::OK();
}

arrow::Status ProductQuantizer::Decode(const IvfModel& ivf, int partition, const uint8_t* codes,
                                       int64_t count, float* out) const {
  const float* centroid = ivf.centroids().data() + static_cast<size_t>(partition) * dim_;
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * code_size();
    float* vector = out + i * dim_;
    for (int j = 0; j < num_sub_vectors_; ++j) {
      const int entry_index = bits_ == 8 ? code[j] : (code[j / 2] >> (4 * (j % 2))) & 0x0f;
      const float* entry = codebook(j) + static_cast<size_t>(entry_index) * sub_dim_;
      for (int d = 0; d < sub_dim_; ++d) {
        vector[j * sub_dim_ + d] = (residual_ ? centroid[j * sub_dim_ + d] : 0.0f) + entry[d];
      }
    }
  }
  return arrow::Status::OK();
}

void ProductQuantizer::PrepareSearch(const IvfModel& ivf) {
  const int entries = codebook_size();
  const size_t per_partition = static_cast<size_t>(num_sub_vectors_) * entries;
  const size_t bytes = per_partition * static_cast<size_t>(ivf.num_partitions()) * sizeof(float);
  if (!residual_ || ivf.metric() != Metric::kL2 || bytes > kMaxPrecomputedSearchBytes) return;
  partition_terms_.assign(per_partition * static_cast<size_t>(ivf.num_partitions()), 0.0f);
  std::vector<float> norms(per_partition);
  for (int j = 0; j < num_sub_vectors_; ++j) {
    for (int c = 0; c < entries; ++c) {
      const float* entry = codebook(j) + static_cast<size_t>(c) * sub_dim_;
      norms[static_cast<size_t>(j) * entries + c] =
          simd::ActiveKernels().inner_product(entry, entry, sub_dim_);
    }
  }
  for (int p = 0; p < ivf.num_partitions(); ++p) {
    const float* centroid = ivf.centroids().data() + static_cast<size_t>(p) * dim_;
    float* terms = partition_terms_.data() + static_cast<size_t>(p) * per_partition;
    for (int j = 0; j < num_sub_vectors_; ++j) {
      float* row = terms + static_cast<size_t>(j) * entries;
      simd::ActiveKernels().inner_product_transposed(centroid + j * sub_dim_, columns(j), entries,
                                                     entries, sub_dim_, row);
      for (int c = 0; c < entries; ++c) {
        row[c] = norms[static_cast<size_t>(j) * entries + c] + 2.0f * row[c];
      }
    }
  }
}

void ProductQuantizer::StoreCodes(const uint8_t* rows, int64_t count, uint8_t* stored) const {
  const int code_bytes = code_size();
  if (bits_ == 8) {
    std::memcpy(stored, rows, static_cast<size_t>(count) * code_bytes);
    return;
  }
  for (int64_t first = 0; first < count; first += kPq4BlockRows) {
    const int block = static_cast<int>(std::min<int64_t>(kPq4BlockRows, count - first));
    TransposeBytes(rows + first * code_bytes, block, code_bytes, stored + first * code_bytes);
  }
}

void ProductQuantizer::LoadCodes(const uint8_t* stored, int64_t count, uint8_t* rows) const {
  const int code_bytes = code_size();
  if (bits_ == 8) {
    std::memcpy(rows, stored, static_cast<size_t>(count) * code_bytes);
    return;
  }
  for (int64_t first = 0; first < count; first += kPq4BlockRows) {
    const int block = static_cast<int>(std::min<int64_t>(kPq4BlockRows, count - first));
    TransposeBytes(stored + first * code_bytes, code_bytes, block, rows + first * code_bytes);
  }
}

void ProductQuantizer::ScoreQueries(QueryScorer* const* scorers, int num, int partition,
                                    const uint8_t* codes, int64_t count, float* const* out) const {
  if (bits_ != 4) {
    Quantizer::ScoreQueries(scorers, num, partition, codes, count, out);
    return;
  }
  const simd::Kernels& kernels = simd::ActiveKernels();
  const int64_t blocks = count / kPq4BlockRows;
  for (int first = 0; first < num; first += simd::kPq4MaxQueries) {
    const int group = std::min(num - first, simd::kPq4MaxQueries);
    const uint8_t* luts[simd::kPq4MaxQueries];
    float offsets[simd::kPq4MaxQueries];
    float steps[simd::kPq4MaxQueries];
    for (int i = 0; i < group; ++i) {
      luts[i] = static_cast<ProductQueryScorer*>(scorers[first + i])
                    ->FastScanTables(partition, &offsets[i], &steps[i]);
    }
    kernels.pq4_fast_scan_queries(codes, blocks, code_size(), group, luts, offsets, steps,
                                  out + first);
    for (int i = 0; i < group; ++i) {
      static_cast<ProductQueryScorer*>(scorers[first + i])
          ->ScanPartialBlock(codes, count, offsets[i], out[first + i]);
    }
  }
}

std::unique_ptr<QueryScorer> ProductQuantizer::Prepare(const IvfModel& ivf,
                                                       const float* query) const {
  return std::make_unique<ProductQueryScorer>(*this, ivf, query);
}

}  // namespace tessera::index::vector
