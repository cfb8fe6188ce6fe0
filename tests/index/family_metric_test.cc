// IndexFamily::MetricOf: the metric a planner learns from an index definition, through its
// family — vector families read their own parameter, other families have none.
#include <gtest/gtest.h>

#include <string>

#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"

namespace tessera::index::family_metric_test {
namespace {

using vector::Metric;

format::IndexDef Definition(const std::string& family, const std::string& metric = "") {
  format::IndexDef definition;
  definition.set_name("idx");
  definition.set_family(family);
  if (!metric.empty()) (*definition.mutable_params())["metric"] = metric;
  (*definition.mutable_params())["num_partitions"] = "16";
  return definition;
}

TEST(FamilyMetric, VectorFamiliesReadTheirMetricParameter) {
  for (const std::string name :
       {"IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_RQ", "IVF_HNSW_FLAT", "IVF_HNSW_SQ", "IVF_HNSW_PQ"}) {
    const IndexFamily* family = FindFamily(name);
    ASSERT_NE(family, nullptr) << name;
    EXPECT_EQ(family->MetricOf(Definition(name, "cosine")), Metric::kCosine) << name;
    EXPECT_EQ(family->MetricOf(Definition(name, "DOT")), Metric::kDot) << name;
    EXPECT_EQ(family->MetricOf(Definition(name, "l2")), Metric::kL2) << name;
    // What Validate fills in when the parameter is left out.
    EXPECT_EQ(family->MetricOf(Definition(name)), Metric::kL2) << name;
    EXPECT_EQ(family->MetricOf(Definition(name, "manhattan")), std::nullopt) << name;
  }
}

TEST(FamilyMetric, OtherFamiliesHaveNone) {
  const IndexFamily* family = FindFamily("BTREE");
  ASSERT_NE(family, nullptr);
  EXPECT_EQ(family->MetricOf(Definition("BTREE", "l2")), std::nullopt);
}

}  // namespace
}  // namespace tessera::index::family_metric_test
