// OpenBLAS is opened by the commands that multiply matrices, not at every process start
// (index/vector/openblas.h): a count never loads it, a vector index build over more than 32
// dimensions does (fewer take the transposed kernel, no product). Seen through
// the dynamic loader's own trace (LD_DEBUG=files, glibc), which names every object it opens.
#include <gtest/gtest.h>

#include "support/cli_fixture.h"

namespace tessera::cli_openblas_loading_test {
namespace {

using testing::CliFixture;
using testing::Contains;
using testing::ScopedEnvironment;

class CliOpenBlasLoading : public CliFixture {};

TEST_F(CliOpenBlasLoading, OnlyAVectorIndexBuildLoadsIt) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "2000", "--dim", "64"});
  ScopedEnvironment trace("LD_DEBUG", "files");
  const auto count = Run({"count", ds, "--where", "id < 10"});
  ASSERT_EQ(count.exit_code, 0) << count.err;
  ASSERT_TRUE(Contains(count.err, "file=")) << "no loader trace: " << count.err.substr(0, 500);
  EXPECT_FALSE(Contains(count.err, "openblas")) << count.err;
  const auto build =
      Run({"index", "create", ds, "--name", "vec_idx", "--column", "vector", "--type", "ivf_flat",
           "--param", "num_partitions=4", "--param", "max_iters=5"});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_TRUE(Contains(build.err, "openblas")) << build.err.substr(0, 2000);
}

}  // namespace
}  // namespace tessera::cli_openblas_loading_test
