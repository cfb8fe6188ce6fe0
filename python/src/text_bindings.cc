// tessera._native: full-text (BM25) and hybrid search (query/text_search.h). The many knobs
// arrive as one dict whose keys are the Python keyword arguments (tessera/dataset.py fills it
// with every key); a key it lacks keeps the engine's default.
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "arrow_streams.h"
#include "bindings.h"
#include "errors.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/text_search.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

template <typename T>
void Read(const nb::dict& options, const char* key, T* field) {
  if (!options.contains(key)) return;
  nb::handle value = options[key];
  if (value.is_none()) return;
  if (!nb::try_cast<T>(value, *field)) {
    Check(InvalidArgument("search option '", key, "' has a value of the wrong type: ",
                          nb::cast<std::string>(nb::repr(value))));
  }
}

query::TextSearchOptions TextOptions(const nb::dict& options) {
  query::TextSearchOptions text;
  for (auto& [name, boost] :
       nb::cast<std::vector<std::pair<std::string, double>>>(options["columns"])) {
    text.columns.push_back(query::BoostedColumn{name, boost});
  }
  Read(options, "text", &text.text);
  std::string type = "match";
  Read(options, "query_type", &type);
  text.type = Unwrap(query::ParseTextQueryType(type));
  std::string op = "or";
  Read(options, "operator", &op);
  if (op != "or" && op != "and") {
    Check(InvalidArgument("operator must be 'or' or 'and', got '", op, "'"));
  }
  text.operator_and = op == "and";
  Read(options, "minimum_should_match", &text.minimum_should_match);
  Read(options, "slop", &text.slop);
  Read(options, "fuzziness", &text.fuzziness);
  Read(options, "max_expansions", &text.max_expansions);
  Read(options, "k1", &text.k1);
  Read(options, "b", &text.b);
  Read(options, "k", &text.k);
  Read(options, "filter", &text.filter);
  Read(options, "prefilter", &text.prefilter);
  Read(options, "highlight", &text.highlight);
  Read(options, "highlight_length", &text.highlight_length);
  Read(options, "projection", &text.projection);
  Read(options, "with_row_address", &text.with_row_address);
  return text;
}

using QueryVector = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

}  // namespace

void BindTextSearch(nb::module_& module) {
  module.def(
      "text_search",
      [](const DatasetHandle& self, const nb::dict& options) {
        const auto text = TextOptions(options);
        return ExportTable(
            Unwrap(WithoutGil([&] { return query::TextSearch(self.snapshot, text); })));
      },
      nb::arg("dataset"), nb::arg("options"));
  module.def(
      "hybrid_search",
      [](const DatasetHandle& self, QueryVector vector, const nb::dict& options) {
        query::HybridSearchOptions hybrid;
        hybrid.text = TextOptions(options);
        hybrid.vector.query.assign(vector.data(), vector.data() + vector.shape(0));
        Read(options, "vector_column", &hybrid.vector.column);
        Read(options, "nprobes", &hybrid.vector.nprobes);
        Read(options, "refine_factor", &hybrid.vector.refine_factor);
        std::string metric;
        Read(options, "metric", &metric);
        if (!metric.empty()) hybrid.vector.metric = Unwrap(index::vector::ParseMetric(metric));
        std::string fusion = "rrf";
        Read(options, "fusion", &fusion);
        if (fusion != "rrf" && fusion != "weighted") {
          Check(InvalidArgument("fusion must be 'rrf' or 'weighted', got '", fusion, "'"));
        }
        hybrid.fusion = fusion == "rrf" ? query::Fusion::kReciprocalRank : query::Fusion::kWeighted;
        Read(options, "rrf_k", &hybrid.rrf_k);
        Read(options, "text_weight", &hybrid.text_weight);
        Read(options, "candidate_factor", &hybrid.candidate_factor);
        Read(options, "k", &hybrid.k);
        Read(options, "filter", &hybrid.filter);
        Read(options, "prefilter", &hybrid.prefilter);
        Read(options, "projection", &hybrid.projection);
        Read(options, "with_row_address", &hybrid.with_row_address);
        return ExportTable(Unwrap(
            WithoutGil([&] { return query::HybridSearch(self.snapshot->dataset(), hybrid); })));
      },
      nb::arg("dataset"), nb::arg("vector"), nb::arg("options"));
}

}  // namespace tessera::python
