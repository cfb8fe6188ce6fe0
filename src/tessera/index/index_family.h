// IndexFamily: one kind of index (BTREE, IVF_FLAT, ...), stateless and registered once by name
// (docs/design.md, "Segment contract"). Everything about a family's files lives behind this
// interface: adding a family means implementing it and registering it; commits, planning and the
// CLI do not change.
//
// The contract every family keeps:
//  - Validate() rejects unsupported column types and unknown or out-of-range parameters before
//    any work, and returns the parameters normalized (defaults filled in, canonical spelling),
//    so that equal definitions compare equal.
//  - Build() reads only input.fragments and writes only into out_dir (an empty directory
//    _indices/<uuid>/ that the caller created); it returns the segment's metadata and never
//    touches a manifest.
//  - Merge() writes new self-contained segments; it never stitches metadata or shares files.
//  - Segments answer in row addresses and ignore deletions: the planner applies them.
//  - RequiredFiles() names every file a reader of the segment opens, so that a commit can check
//    they all exist before it publishes the segment (index/segment_files.h).
//  - MetricOf() is what a planner knows of a definition's vectors: a vector family answers with
//    its metric, every other family with none, so no planner parses a family's parameters.
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/params.h"
#include "tessera/index/vector/distance.h"
#include "tessera/io/storage.h"

namespace tessera::index {

// What a build reads: the fragments of one dataset version and the indexed column.
struct BuildInput {
  std::shared_ptr<io::Storage> storage;
  std::shared_ptr<arrow::Schema> schema;  // the dataset schema at `dataset_version`
  int column_index = -1;                  // index into schema of the indexed column
  int32_t field_id = -1;
  uint64_t dataset_version = 0;
  std::vector<format::Fragment> fragments;  // the only fragments the build may read
  std::string index_name;
  Params params;  // normalized by Validate()
};

// A directory of one segment under construction or one finished segment, relative to the
// dataset root ("_indices/<uuid>").
struct SegmentDirectory {
  std::shared_ptr<io::Storage> storage;
  std::string path;
  std::string uuid;
};

// A trained, shareable model (IVF centroids, PQ codebooks): bytes plus a fingerprint; segments
// built with equal fingerprints can be merged by concatenation.
struct Model {
  std::string family;
  std::string fingerprint;
  std::string bytes;  // family-specific serialization
};

// A scored candidate of a vector search.
struct ScoredRow {
  uint64_t row_address;
  float distance;
};

// `count` consecutive row addresses from `first`, all of one fragment.
struct RowAddressRun {
  uint64_t first = 0;
  uint64_t count = 0;
};

// Row addresses answered by a scalar segment for one predicate: `rows` and the addresses of
// `runs`, each ascending, disjoint. Families whose answers are runs of consecutive rows (zones)
// give runs, which cost nothing per row; others give rows. `exact` false means a superset that
// the planner must recheck.
struct RowAddressSet {
  std::vector<uint64_t> rows;
  std::vector<RowAddressRun> runs;
  bool exact = true;

  uint64_t size() const;
  // Every address, ascending.
  std::vector<uint64_t> Addresses() const;
};

class ScalarSegmentReader;
class TextSegmentReader;
class VectorSegmentReader;

class SegmentReader {
 public:
  virtual ~SegmentReader() = default;
  virtual const format::SegmentMeta& meta() const = 0;
  virtual ScalarSegmentReader* AsScalar() { return nullptr; }
  virtual VectorSegmentReader* AsVector() { return nullptr; }
  virtual TextSegmentReader* AsText() { return nullptr; }
};

class IndexFamily {
 public:
  virtual ~IndexFamily() = default;
  virtual std::string_view name() const = 0;
  // Checks the column type and parameters; returns the normalized parameters.
  virtual arrow::Result<Params> Validate(const arrow::Field& column,
                                         const Params& params) const = 0;
  virtual bool has_model() const { return false; }
  // Vector families: derives a model from a sample of input.fragments.
  virtual arrow::Result<Model> Train(const BuildInput& input) const;
  // Builds one segment over input.fragments into `out` (model: from Train, or null to train on
  // the build's own input where the family needs one).
  virtual arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                                   const SegmentDirectory& out) const = 0;
  // Rewrites `inputs` (segments of one logical index over disjoint fragments) into one new
  // segment in `out`. Unsupported where inputs are not merge-compatible (different models).
  virtual arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                                   const std::vector<SegmentDirectory>& dirs,
                                                   const SegmentDirectory& out) const = 0;
  // The model a segment was built with (vector families), to build deltas with the same model.
  virtual arrow::Result<Model> LoadModel(const format::SegmentMeta& segment,
                                         const SegmentDirectory& dir) const;
  virtual arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                             const SegmentDirectory& dir) const = 0;
  // The names, inside the segment directory, of the files Open() needs for `segment`.
  virtual std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const = 0;

  // Checks that the files in `dir` are what `segment` claims, before segments built elsewhere
  // are committed: a segment of this family, of the column and parameters of `definition` (a
  // BuildInput without fragments), with the model its fingerprint names. InvalidArgument
  // naming the segment and both values for a false claim; Corrupt for damaged files. The
  // default opens the segment.
  virtual arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                               const SegmentDirectory& dir) const;

  // Vector families: the metric of the vectors of `definition` (an index of this family), from
  // its parameters; absent for a definition whose metric parameter names no metric (one that
  // Validate did not write). Absent for every other family (the default).
  virtual std::optional<vector::Metric> MetricOf(const format::IndexDef& definition) const;

  // Whether its segment readers may answer filter predicates (SegmentReader::AsScalar): the
  // filter planner does not open the indexes of a family that says no (vector, full-text).
  virtual bool answers_predicates() const { return true; }

  // Whether it indexes vectors for nearest-neighbour search: the families SQL's `USING ANN`
  // names by their `index_type` property.
  virtual bool searches_vectors() const { return false; }
};

// Families by case-insensitive name. The built-in families are registered on first use.
const IndexFamily* FindFamily(std::string_view name);
// NotFound listing the registered families.
arrow::Result<const IndexFamily*> GetFamily(std::string_view name);
std::vector<std::string> FamilyNames();
// Registers a family (process lifetime); AlreadyExists for a taken name.
arrow::Status RegisterFamily(std::unique_ptr<IndexFamily> family);

}  // namespace tessera::index
