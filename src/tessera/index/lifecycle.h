// The index lifecycle (docs/design.md, "Segment contract" and "Index lifecycle"): create, replace,
// drop, optimize, and the distributed workflow train → build_uncommitted → merge → commit_segments.
// Every operation reduces to "write new segment directories, then commit one IndexChange": the same
// atomic operation on segment sets, whoever built the segments and wherever.
//
// Names: display case is kept, lookups ignore case; a new name differing only by case from an
// existing one is rejected; names starting with "__" are system indexes, hidden from
// ListIndexes unless asked for.
#pragma once

#include <arrow/result.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/params.h"

namespace tessera::util {
class OperationControl;
}

namespace tessera::index {

struct IndexSpec {
  std::string name;
  std::string column;
  std::string family;  // "BTREE", "IVF_FLAT", ... (case-insensitive)
  Params params;
};

struct CreateIndexOptions {
  bool if_not_exists = false;  // no-op when an index of that name has this definition
  bool replace = false;        // rebuild; old segments leave in the same commit
  // Progress reports ("training" in iterations for vector families, "building" in rows) and
  // cancellation until the commit (util/operation_control.h); null for none.
  util::OperationControl* control = nullptr;
};

// Builds the index over every fragment of `dataset` and commits it. Returns `dataset` itself
// (no new version) for an if_not_exists no-op.
arrow::Result<std::shared_ptr<dataset::Dataset>> CreateIndex(
    const dataset::Dataset& dataset, const IndexSpec& spec, const CreateIndexOptions& options = {});

// Whether CreateIndex / DropIndex with these arguments would commit (false: their no-op),
// without building anything; their errors otherwise. A server checks this before it starts a
// worker for the statement.
arrow::Result<bool> CreateIndexChanges(const dataset::Dataset& dataset, const IndexSpec& spec,
                                       const CreateIndexOptions& options = {});
arrow::Result<bool> DropIndexChanges(const dataset::Dataset& dataset, std::string_view name,
                                     bool if_exists = false);

arrow::Result<std::shared_ptr<dataset::Dataset>> DropIndex(const dataset::Dataset& dataset,
                                                           std::string_view name,
                                                           bool if_exists = false);

struct MergePolicy {
  enum class Kind { kAuto, kNone, kMaxSegments };
  Kind kind = Kind::kAuto;
  int max_segments = 0;                                            // kMaxSegments
  static arrow::Result<MergePolicy> Parse(std::string_view text);  // "auto" | "none" | N
};

struct OptimizeOptions {
  std::optional<std::string> name;  // all indexes when absent
  MergePolicy merge;
  bool retrain = false;  // vector families: train a new model and rebuild every segment
  // Progress reports (per index: "building" in rows, "merging" in segments) and cancellation
  // (util/operation_control.h); null for none. Indexes are optimized one at a time, each in
  // its own commit: a cancelled optimize keeps the indexes it finished (its message then names
  // the version they made) and commits nothing for the one in progress.
  util::OperationControl* control = nullptr;
};

struct OptimizeReport {
  std::shared_ptr<dataset::Dataset> dataset;  // the latest snapshot after optimizing
  int segments_built = 0;
  int segments_merged = 0;   // input segments rewritten by merges
  int segments_removed = 0;  // segments left without any live fragment
};

// Indexes unindexed fragments with the existing model as a delta segment, then merges per
// policy. Cost is proportional to the new data. With nothing to do it writes nothing.
arrow::Result<OptimizeReport> OptimizeIndexes(const dataset::Dataset& dataset,
                                              const OptimizeOptions& options = {});

// --- distributed workflow ---
// `control` (null for none): a "training" phase in iterations, and cancellation.
arrow::Result<Model> TrainModel(const dataset::Dataset& dataset, const IndexSpec& spec,
                                util::OperationControl* control = nullptr);
// A model as bytes (what `tessera index train --out` writes to its file and Python's
// tessera.Model carries): framed and checksummed, with the field id and the normalized
// parameters of `spec`, so that a worker in another process can check it builds the same index.
arrow::Result<std::string> EncodeModel(const Model& model, const dataset::Dataset& dataset,
                                       const IndexSpec& spec);
// The record of EncodeModel's bytes; `source` names them in errors (a model file's path):
// Corrupt when they are damaged.
arrow::Result<format::IndexModel> DecodeModel(std::string_view bytes, std::string_view source);
// The model of `record` for building segments of `spec` over `dataset`: InvalidArgument when
// it was trained on another column, or with other parameters than `spec->params`. With
// `spec->params` empty, sets them to the model's, so that workers need not repeat them.
arrow::Result<Model> ModelFor(const format::IndexModel& record, std::string_view source,
                              const dataset::Dataset& dataset, IndexSpec* spec);
// Model files (`tessera index train --out FILE`): EncodeModel's bytes, written all at once
// (io::ReplaceFile), replacing any file at `path`: a worker never reads half a model.
arrow::Status WriteModelFile(const std::string& path, const Model& model,
                             const dataset::Dataset& dataset, const IndexSpec& spec);
arrow::Result<Model> ReadModelFile(const std::string& path);
// The whole record of a model file.
arrow::Result<format::IndexModel> ReadModelRecord(const std::string& path);
// ModelFor the record of the file at `path`.
arrow::Result<Model> ReadModelFileFor(const std::string& path, const dataset::Dataset& dataset,
                                      IndexSpec* spec);
// Builds one uncommitted segment over `fragment_ids` (all fragments when empty). `control`
// (null for none) as in CreateIndexOptions; a cancelled build leaves no directory.
arrow::Result<format::SegmentMeta> BuildSegment(const dataset::Dataset& dataset,
                                                const IndexSpec& spec,
                                                const std::vector<uint32_t>& fragment_ids,
                                                const Model* model,
                                                util::OperationControl* control = nullptr);
// Rewrites segments (of one index, disjoint fragments) into one new uncommitted segment.
// `control`: a "merging" phase in segments, and cancellation (null for none).
arrow::Result<format::SegmentMeta> MergeSegments(const dataset::Dataset& dataset,
                                                 const std::vector<format::SegmentMeta>& segments,
                                                 util::OperationControl* control = nullptr);
// Publishes `segments` as (part of) the logical index `spec.name` in one commit, removing the
// existing segments listed in `replaced` (uuids). Creates the index if it does not exist. With
// `spec.params` empty, the parameters are those the first segment was built with (every
// segment must have the same).
arrow::Result<std::shared_ptr<dataset::Dataset>> CommitSegments(
    const dataset::Dataset& dataset, const IndexSpec& spec,
    const std::vector<format::SegmentMeta>& segments,
    const std::vector<std::string>& replaced = {});

// --- inspection ---
struct IndexSummary {
  std::string name;
  std::string column;
  std::string family;
  Params params;
  int num_segments = 0;
  uint64_t indexed_rows = 0;  // live rows of covered fragments
  uint64_t unindexed_rows = 0;
  uint64_t indexed_fragments = 0;
  uint64_t unindexed_fragments = 0;
  std::vector<format::SegmentMeta> segments;
};

// The indexes of a version, in name order.
std::vector<IndexSummary> ListIndexes(const dataset::Dataset& dataset, bool include_system = false);
arrow::Result<IndexSummary> DescribeIndex(const dataset::Dataset& dataset, std::string_view name);
// Physical entries: every segment of every (non-system) index.
std::vector<std::pair<std::string, format::SegmentMeta>> ListSegments(
    const dataset::Dataset& dataset, bool include_system = false);

bool IsSystemIndexName(std::string_view name);

}  // namespace tessera::index
