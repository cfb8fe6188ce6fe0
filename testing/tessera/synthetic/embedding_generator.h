// A deterministic synthetic dataset of embeddings with attributes, for tests, demos and
// benchmarks.
//
// The vectors behave like real embeddings: each is a point of a Gaussian mixture in a
// low-dimensional latent space, lifted to `dim` dimensions by a fixed random linear map, plus
// small isotropic noise. Neighbourhoods therefore have structure (a point's nearest neighbour
// is much closer than a typical point), unlike isotropic noise, where all distances concentrate
// around one value and every index looks equally good or bad.
//
// Invariants:
//  - Every value derives from `seed`: equal options give byte-identical data.
//  - A row's values derive from (seed, row id) alone, never from batch boundaries, so
//    `batch_rows` changes only how rows are chunked.
//  - Generation streams: memory is O(batch_rows × dim + model), never O(rows).
//
// Columns: id int64 (0..rows-1); vector fixed_size_list<float32>[dim]; category string (8
// values, skewed, ~2% null); price float64 (~5% null); ts timestamp[us, UTC] (increasing with
// id, about one row per second from 2024-01-01); tags list<string> (0–3 distinct tags from a
// vocabulary of 16); text string (4–16 words from a vocabulary of 64, biased towards words of
// the row's mixture component, so text and vectors are correlated like real documents).
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::synthetic {

struct EmbeddingOptions {
  int64_t rows = 10000;
  int32_t dim = 128;
  // Dimension of the latent space the mixture lives in (capped at `dim`).
  int32_t latent_dim = 16;
  // Components of the Gaussian mixture.
  int32_t clusters = 32;
  uint64_t seed = 42;
  // Rows per emitted record batch; does not change any value.
  int64_t batch_rows = 8192;
  // Standard deviation of the isotropic noise added to every coordinate of the lifted vector.
  // The lifted signal has a norm of about sqrt(latent_dim); 0.02 keeps the noise well below
  // typical nearest-neighbour distances.
  double noise_stddev = 0.02;
};

// The schema of the generated data (depends only on dim).
std::shared_ptr<arrow::Schema> EmbeddingSchema(int32_t dim);

// InvalidArgument when an option is out of range (the message names it).
arrow::Status ValidateOptions(const EmbeddingOptions& options);

// A stream of options.rows rows in batches of options.batch_rows.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeEmbeddingReader(
    const EmbeddingOptions& options);

// `count` query vectors drawn from the same distribution as the rows (same mixture and map),
// but from a separate random stream, so they are not copies of generated rows. Deterministic in
// (options, count); options.rows and options.batch_rows are ignored. The array has the type of
// the `vector` column.
arrow::Result<std::shared_ptr<arrow::FixedSizeListArray>> MakeQueryVectors(
    const EmbeddingOptions& options, int64_t count);

// The same queries as a flat row-major buffer of count × dim floats.
arrow::Result<std::vector<float>> MakeQueryVectorsFlat(const EmbeddingOptions& options,
                                                       int64_t count);

}  // namespace tessera::synthetic
