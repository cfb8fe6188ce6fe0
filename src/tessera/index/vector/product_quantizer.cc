#include "tessera/index/vector/product_quantizer.h"

#include <cmath>
#include <cstring>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

constexpr uint32_t kBits = 8;
constexpr int kCodebookSamplesPerEntry = 256;
constexpr size_t kHeaderWords = 3;

// Sub-vector j of `count` vectors: count × sub_dim floats, contiguous.
void ExtractSubVectors(const float* vectors, int64_t count, int dim, int j, int sub_dim,
                       float* out) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(out + i * sub_dim, vectors + i * dim + j * sub_dim,
                sizeof(float) * static_cast<size_t>(sub_dim));
  }
}

// out = a + b over m × 256 entries. Rows of a constant 256 and unaliased pointers: a loop the
// compiler vectorizes at -O2 (a length known only at run time left it scalar, a fifth of a
// batch search's time).
void AddTables(const float* __restrict__ a, const float* __restrict__ b, int m,
               float* __restrict__ out) {
  for (int j = 0; j < m; ++j) {
    const size_t row = static_cast<size_t>(j) * kPqCodebookSize;
    for (int c = 0; c < kPqCodebookSize; ++c) out[row + c] = a[row + c] + b[row + c];
  }
}

}  // namespace

class ProductQueryScorer final : public QueryScorer {
 public:
  ProductQueryScorer(const ProductQuantizer& pq, const IvfModel& ivf, const float* query)
      : pq_(pq), ivf_(ivf), query_(query, query + ivf.dim()) {
    table_.resize(static_cast<size_t>(pq.num_sub_vectors()) * kPqCodebookSize);
    if (ivf.metric() == Metric::kL2 && !pq.partition_terms_.empty()) {
      // −2 q_j · codebook_j[c]: the query's part, the same for every partition.
      query_table_.resize(table_.size());
      const int sub_dim = pq.sub_dim();
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        simd::ActiveKernels().inner_product_transposed(query_.data() + j * sub_dim, pq.columns(j),
                                                       kPqCodebookSize, kPqCodebookSize, sub_dim,
                                                       query_table_.data() + j * kPqCodebookSize);
      }
      for (float& entry : query_table_) entry *= -2.0f;
    } else if (ivf.metric() != Metric::kL2) {
      // −q_j · codebook_j[c]: the same for every partition.
      const int sub_dim = pq.sub_dim();
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        simd::ActiveKernels().inner_product_transposed(query_.data() + j * sub_dim, pq.columns(j),
                                                       kPqCodebookSize, kPqCodebookSize, sub_dim,
                                                       table_.data() + j * kPqCodebookSize);
      }
      for (float& entry : table_) entry = -entry;
    }
  }

  void Score(int partition, const uint8_t* codes, int64_t count, float* out) override {
    const int dim = ivf_.dim();
    const float* centroid = ivf_.centroids().data() + static_cast<size_t>(partition) * dim;
    float bias = 0;
    if (ivf_.metric() == Metric::kL2 && !query_table_.empty()) {
      bias = simd::ActiveKernels().l2_squared(query_.data(), centroid, dim);
      if (partition != table_partition_) {
        const float* terms =
            pq_.partition_terms_.data() + static_cast<size_t>(partition) * table_.size();
        AddTables(query_table_.data(), terms, pq_.num_sub_vectors(), table_.data());
        table_partition_ = partition;
      }
    } else if (ivf_.metric() == Metric::kL2) {
      if (partition != table_partition_) {
        // ‖(q − c_p)_j − codebook_j[c]‖² for every j and c.
        residual_.resize(static_cast<size_t>(dim));
        for (int d = 0; d < dim; ++d) residual_[d] = query_[d] - centroid[d];
        const int sub_dim = pq_.sub_dim();
        for (int j = 0; j < pq_.num_sub_vectors(); ++j) {
          simd::ActiveKernels().l2_squared_transposed(
              residual_.data() + j * sub_dim, pq_.columns(j), kPqCodebookSize, kPqCodebookSize,
              sub_dim, table_.data() + j * kPqCodebookSize);
        }
        table_partition_ = partition;
      }
    } else {
      bias = CentroidDistanceTerm(ivf_, query_.data(), partition);
    }
    simd::ActiveKernels().pq_adc_batch(codes, count, pq_.num_sub_vectors(), table_.data(), out);
    if (bias != 0) {
      for (int64_t i = 0; i < count; ++i) out[i] += bias;
    }
  }

 private:
  const ProductQuantizer& pq_;
  const IvfModel& ivf_;
  std::vector<float> query_;
  std::vector<float> residual_;
  std::vector<float> query_table_;  // l2 with precomputed terms: m × 256 entries −2 q_j·e
  std::vector<float> table_;        // m × 256
  int table_partition_ = -1;
};

arrow::Result<ProductQuantizer> ProductQuantizer::Train(const IvfModel& ivf, const float* sample,
                                                        const int32_t* partitions, int64_t count,
                                                        const ProductQuantizerOptions& options) {
  const int dim = ivf.dim();
  const int m = options.num_sub_vectors;
  if (m < 1 || dim % m != 0) {
    return InvalidArgument("num_sub_vectors ", m, " does not divide the dimension ", dim);
  }
  if (count < 1) return InvalidArgument("product quantization needs at least one sample vector");
  ProductQuantizer pq;
  pq.dim_ = dim;
  pq.num_sub_vectors_ = m;
  pq.sub_dim_ = dim / m;
  pq.codebooks_.assign(static_cast<size_t>(m) * kPqCodebookSize * pq.sub_dim_, 0.0f);
  // 256 centroids of a few dimensions need far fewer points than the IVF partitions: codebooks
  // train on an evenly spread subset of at most kCodebookSamplesPerEntry × 256 sample rows.
  std::vector<float> subset;
  std::vector<int32_t> subset_partitions;
  const int64_t most = int64_t{kCodebookSamplesPerEntry} * kPqCodebookSize;
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
  const std::vector<float> residuals = ivf.Residuals(sample, partitions, count);
  // One k-means per sub-vector, independent of each other: they run in parallel (each one's
  // own loops then run serially, so the result does not depend on the thread count).
  ARROW_RETURN_NOT_OK(util::ParallelFor(m, [&](int64_t first, int64_t last) -> arrow::Status {
    std::vector<float> sub(static_cast<size_t>(count) * pq.sub_dim_);
    for (int64_t j = first; j < last; ++j) {
      ExtractSubVectors(residuals.data(), count, dim, static_cast<int>(j), pq.sub_dim_, sub.data());
      KMeansOptions kmeans;
      kmeans.num_clusters = static_cast<int>(std::min<int64_t>(kPqCodebookSize, count));
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
      float* codebook =
          pq.codebooks_.data() + static_cast<size_t>(j) * kPqCodebookSize * pq.sub_dim_;
      for (int c = 0; c < kPqCodebookSize; ++c) {
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
  if (bytes.size() < sizeof(header) || header[0] != static_cast<uint32_t>(dim) || m == 0 ||
      dim % static_cast<int>(m) != 0 || header[2] != kBits ||
      bytes.size() != sizeof(header) + sizeof(float) * kPqCodebookSize * static_cast<size_t>(dim)) {
    return Corrupt(what, " does not hold a product quantizer of dimension ", dim, " (",
                   bytes.size(), " bytes, dimension ", header[0], ", ", m, " sub-vectors, ",
                   header[2], " bits)");
  }
  ProductQuantizer pq;
  pq.dim_ = dim;
  pq.num_sub_vectors_ = static_cast<int>(m);
  pq.sub_dim_ = dim / pq.num_sub_vectors_;
  pq.codebooks_.resize(static_cast<size_t>(kPqCodebookSize) * dim);
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
    TransposeRows(codebook(j), kPqCodebookSize, sub_dim_,
                  columns_.data() + static_cast<size_t>(j) * kPqCodebookSize * sub_dim_);
  }
}

std::string ProductQuantizer::Serialize() const {
  const uint32_t header[kHeaderWords] = {static_cast<uint32_t>(dim_),
                                         static_cast<uint32_t>(num_sub_vectors_), kBits};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  bytes.append(reinterpret_cast<const char*>(codebooks_.data()), codebooks_.size() * sizeof(float));
  return bytes;
}

arrow::Status ProductQuantizer::Encode(const IvfModel& ivf, const float* vectors,
                                       const int32_t* partitions, int64_t count,
                                       uint8_t* codes) const {
  if (count == 0) return arrow::Status::OK();
  const std::vector<float> residuals = ivf.Residuals(vectors, partitions, count);
  std::vector<float> sub(static_cast<size_t>(count) * sub_dim_);
  std::vector<int32_t> nearest(static_cast<size_t>(count));
  for (int j = 0; j < num_sub_vectors_; ++j) {
    ExtractSubVectors(residuals.data(), count, dim_, j, sub_dim_, sub.data());
    ARROW_RETURN_NOT_OK(AssignNearest(Metric::kL2, sub.data(), count, codebook(j), kPqCodebookSize,
                                      sub_dim_, nearest.data()));
    for (int64_t i = 0; i < count; ++i) {
      codes[i * num_sub_vectors_ + j] = static_cast<uint8_t>(nearest[i]);
    }
  }
  return arrow::Status::OK();
}

arrow::Status ProductQuantizer::Decode(const IvfModel& ivf, int partition, const uint8_t* codes,
                                       int64_t count, float* out) const {
  const float* centroid = ivf.centroids().data() + static_cast<size_t>(partition) * dim_;
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * num_sub_vectors_;
    float* vector = out + i * dim_;
    for (int j = 0; j < num_sub_vectors_; ++j) {
      const float* entry = codebook(j) + static_cast<size_t>(code[j]) * sub_dim_;
      for (int d = 0; d < sub_dim_; ++d) {
        vector[j * sub_dim_ + d] = centroid[j * sub_dim_ + d] + entry[d];
      }
    }
  }
  return arrow::Status::OK();
}

void ProductQuantizer::PrepareSearch(const IvfModel& ivf) {
  const size_t per_partition = static_cast<size_t>(num_sub_vectors_) * kPqCodebookSize;
  const size_t bytes = per_partition * static_cast<size_t>(ivf.num_partitions()) * sizeof(float);
  if (ivf.metric() != Metric::kL2 || bytes > kMaxPrecomputedSearchBytes) return;
  partition_terms_.assign(per_partition * static_cast<size_t>(ivf.num_partitions()), 0.0f);
  std::vector<float> norms(per_partition);
  for (int j = 0; j < num_sub_vectors_; ++j) {
    for (int c = 0; c < kPqCodebookSize; ++c) {
      const float* entry = codebook(j) + static_cast<size_t>(c) * sub_dim_;
      norms[static_cast<size_t>(j) * kPqCodebookSize + c] =
          simd::ActiveKernels().inner_product(entry, entry, sub_dim_);
    }
  }
  for (int p = 0; p < ivf.num_partitions(); ++p) {
    const float* centroid = ivf.centroids().data() + static_cast<size_t>(p) * dim_;
    float* terms = partition_terms_.data() + static_cast<size_t>(p) * per_partition;
    for (int j = 0; j < num_sub_vectors_; ++j) {
      float* row = terms + static_cast<size_t>(j) * kPqCodebookSize;
      simd::ActiveKernels().inner_product_transposed(
          centroid + j * sub_dim_, columns(j), kPqCodebookSize, kPqCodebookSize, sub_dim_, row);
      for (int c = 0; c < kPqCodebookSize; ++c) {
        row[c] = norms[static_cast<size_t>(j) * kPqCodebookSize + c] + 2.0f * row[c];
      }
    }
  }
}

std::unique_ptr<QueryScorer> ProductQuantizer::Prepare(const IvfModel& ivf,
                                                       const float* query) const {
  return std::make_unique<ProductQueryScorer>(*this, ivf, query);
}

}  // namespace tessera::index::vector
