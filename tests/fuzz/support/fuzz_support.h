// What the fuzz targets of tests/fuzz share: a scratch directory per process, a small template
// dataset built through the library at start-up (so the valid files next to the fuzzed one
// always have the current on-disk format), a way to put a file back as it was after an input
// replaced it, and the checksum repairs that let mutations reach the parsers behind a
// checksum.
//
// Every function aborts the process (a finding) when the fixture itself cannot be set up: a
// fuzz target must not silently test nothing.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"

namespace tessera::fuzz {

// Makes the process deterministic, quiet and fully visible to ASan: one worker thread, Arrow's
// system memory pool, no protobuf log lines.
// Call from LLVMFuzzerInitialize.
void InitializeProcess();

// The LLVMFuzzerInitialize of every target that reads the template dataset:
//   extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }
// InitializeProcess, then the template built before the first input, so that no input is
// charged with building it. Returns 0, which libFuzzer expects.
int InitializeWithTemplate();

// A fresh directory of this process (under $TMPDIR), removed at exit.
const std::filesystem::path& ScratchRoot();

std::string ReadWholeFile(const std::filesystem::path& path);
void WriteWholeFile(const std::filesystem::path& path, std::string_view bytes);

// The fuzzer's input as a string.
inline std::string_view BytesOf(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `file` with a valid frame (io/framed_file.h): its payload (the bytes before the footer when
// `file` ends with one, else all of it) framed again, so that a mutation of the payload reaches
// the decoder behind the checksum.
std::string Reframe(std::string_view file);

// The payload of a file that Reframe returned: its bytes before the footer.
std::string_view FramePayload(std::string_view framed);

// Runs `read` on `file` as given (where the footer and checksum checks see it), then on
// Reframe(file) (where a mutation of the payload reaches the decoder behind the checksum).
void AsGivenAndReframed(std::string_view file, const std::function<void(std::string_view)>& read);

// `bytes` with their trailing CRC-32C (of all the bytes before it) recomputed, the layout of
// IVF model files (index/vector/ivf_model.h).
std::string WithTrailingCrc(std::string_view bytes);
// The same for a quantized IVF model (ivf_quantized_model.h): the embedded IvfModel's checksum,
// then the outer one.
std::string WithQuantizedModelCrcs(std::string_view bytes);

// A dataset of 200 synthetic rows (synthetic/embedding_generator.h, dim 8, 4 clusters, seed 42)
// in two fragments (128 and 72 rows, one batch each) with a deletion, and indexes:
//   price_btree (BTREE on price, float64 with nulls), category_btree (BTREE on category),
//   vector_flat / vector_sq / vector_pq / vector_rq (IVF_FLAT, IVF_SQ, IVF_PQ, IVF_RQ on vector,
//   4 partitions), vector_hnsw (IVF_HNSW_SQ on vector, 4 partitions, m 4),
//   category_bitmap (BITMAP), tags_labels (LABEL_LIST on tags), text_ngram (NGRAM on text),
//   price_zonemap (ZONEMAP, 16 rows per zone), id_bloom (BLOOMFILTER on id, 16 rows per zone).
// Built once per process in a directory of ScratchRoot().
struct TemplateDataset {
  std::filesystem::path root;
  std::shared_ptr<dataset::Dataset> dataset;  // the latest version
  // Every regular file under root when it was built (relative paths).
  std::vector<std::string> files;
};
const TemplateDataset& Template();

// The segment of index `name` of the template (it has exactly one).
const format::SegmentMeta& TemplateSegment(std::string_view index_name);

// Removes every file under the template's root that was not there when it was built (new
// manifests, transactions, data and deletion files of commits an input made), and restores
// `replaced` (paths relative to the root) from the pristine copies.
void ResetTemplate(const std::vector<std::string>& replaced = {});

// Overwrites `relative` (a path under the template's root) with `bytes`, and its block checksums
// (`<relative>.crc32c`, when it has them) with checksums of `bytes`; ResetTemplate({path}) puts
// both back.
void ReplaceTemplateFile(const std::string& relative, std::string_view bytes);

// The first batch of the template's rows (64 rows, every column).
const std::shared_ptr<arrow::RecordBatch>& TemplateBatch();

// Consumes a status or result: the fuzz targets accept every error (typed errors are the
// expected answer to bad input); crashes, hangs, leaks and UB are what they look for.
template <typename T>
void Ignore(const T&) {}

}  // namespace tessera::fuzz
