// tessera._native: nearest-neighbour search of one query or a batch (query/prepared_nearest.h).
#include <arrow/table.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrow_streams.h"
#include "bindings.h"
#include "errors.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/knn_join.h"
#include "tessera/query/prepared_nearest.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

// Row-major (queries × dimension) float32, C-contiguous, in host memory: read in place.
using QueryMatrix = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

struct SearchArguments {
  query::NearestOptions options;
  bool numbered = false;  // a batch: results get the query column
};

arrow::Result<std::shared_ptr<arrow::Table>> Search(const DatasetHandle& self,
                                                    const SearchArguments& arguments,
                                                    const float* queries, int64_t count,
                                                    int64_t dim) {
  ARROW_ASSIGN_OR_RAISE(auto prepared,
                        query::PreparedNearest::Make(self.snapshot, arguments.options));
  if (dim != prepared->dim()) {
    return InvalidArgument("the query has ", dim, " dimensions, but column '",
                           arguments.options.column, "' of dataset ", self.dataset().uri(),
                           " holds vectors of ", prepared->dim());
  }
  std::vector<std::vector<index::ScoredRow>> found;
  if (count == 1) {
    ARROW_ASSIGN_OR_RAISE(auto rows, prepared->Search(queries));
    found.push_back(std::move(rows));
  } else {
    ARROW_ASSIGN_OR_RAISE(found, prepared->SearchBatch(queries, count));
  }
  return prepared->MaterializeBatch(found, arguments.numbered);
}

// The whole join of `left` as one table (with its schema when the left input is empty).
arrow::Result<std::shared_ptr<arrow::Table>> Join(const DatasetHandle& self,
                                                  arrow::RecordBatchReader& left,
                                                  const query::KnnJoinOptions& options) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  ARROW_ASSIGN_OR_RAISE(auto result,
                        query::KnnJoin(left, self.snapshot, options,
                                       [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
                                         batches.push_back(batch);
                                         return arrow::Status::OK();
                                       }));
  return arrow::Table::FromRecordBatches(result.schema, batches);
}

}  // namespace

void BindSearch(nb::module_& module) {
  module.def(
      "search",
      [](const DatasetHandle& self, QueryMatrix queries, bool numbered, std::string column,
         int64_t k, int nprobes, int refine_factor, int ef, std::optional<std::string> metric,
         std::string filter, bool prefilter, std::optional<float> lower_distance,
         std::optional<float> upper_distance, int64_t offset, std::vector<std::string> columns,
         bool with_row_address, bool use_index) {
        SearchArguments arguments;
        arguments.numbered = numbered;
        auto& options = arguments.options;
        options.column = std::move(column);
        options.k = k;
        options.nprobes = nprobes;
        options.refine_factor = refine_factor;
        options.ef = ef;
        if (metric) options.metric = Unwrap(index::vector::ParseMetric(*metric));
        options.filter = std::move(filter);
        options.prefilter = prefilter;
        options.lower_distance = lower_distance;
        options.upper_distance = upper_distance;
        options.offset = offset;
        options.columns = std::move(columns);
        options.with_row_address = with_row_address;
        options.use_index = use_index;
        if (queries.shape(0) == 0) Check(InvalidArgument("search: no query vector given"));
        const auto count = static_cast<int64_t>(queries.shape(0));
        const auto dim = static_cast<int64_t>(queries.shape(1));
        return ExportTable(Unwrap(
            WithoutGil([&] { return Search(self, arguments, queries.data(), count, dim); })));
      },
      nb::arg("dataset"), nb::arg("queries"), nb::arg("numbered"), nb::arg("column"), nb::arg("k"),
      nb::arg("nprobes"), nb::arg("refine_factor"), nb::arg("ef"), nb::arg("metric").none(),
      nb::arg("filter"), nb::arg("prefilter"), nb::arg("lower_distance").none(),
      nb::arg("upper_distance").none(), nb::arg("offset"), nb::arg("columns"),
      nb::arg("with_row_address"), nb::arg("use_index"));
  module.def(
      "knn_join",
      [](const DatasetHandle& self, nb::handle left_stream, std::string left_column,
         std::vector<std::string> left_columns, std::string right_column,
         std::vector<std::string> right_columns, int64_t k, int nprobes, int refine_factor, int ef,
         std::optional<std::string> metric, std::string filter, bool use_index,
         int64_t batch_rows) {
        auto left = ImportStream(left_stream);
        query::KnnJoinOptions options;
        options.left_column = std::move(left_column);
        options.left_columns = std::move(left_columns);
        options.right.column = std::move(right_column);
        options.right.columns = std::move(right_columns);
        options.right.k = k;
        options.right.nprobes = nprobes;
        options.right.refine_factor = refine_factor;
        options.right.ef = ef;
        if (metric) options.right.metric = Unwrap(index::vector::ParseMetric(*metric));
        options.right.filter = std::move(filter);
        options.right.use_index = use_index;
        options.batch_rows = batch_rows;
        return ExportTable(Unwrap(WithoutGil([&] { return Join(self, *left, options); })));
      },
      nb::arg("dataset"), nb::arg("left"), nb::arg("left_column"), nb::arg("left_columns"),
      nb::arg("right_column"), nb::arg("right_columns"), nb::arg("k"), nb::arg("nprobes"),
      nb::arg("refine_factor"), nb::arg("ef"), nb::arg("metric").none(), nb::arg("filter"),
      nb::arg("use_index"), nb::arg("batch_rows"));
}

}  // namespace tessera::python
