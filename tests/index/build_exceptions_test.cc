// Index builds turn what a family throws into typed errors (util/exception_guard.h): an
// allocation that fails while building, training or merging is ResourceExhausted naming the
// index, never an exception out of the library. A test family throws on purpose.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::build_exceptions_test {
namespace {

// Builds by running a parallel loop whose body throws std::bad_alloc, as a real family's
// worker does when it cannot allocate; trains by throwing on the calling thread; merges by
// throwing something else.
class ThrowingFamily : public IndexFamily {
 public:
  std::string_view name() const override { return "THROWING_TEST"; }
  arrow::Result<Params> Validate(const arrow::Field&, const Params& params) const override {
    return params;
  }
  bool has_model() const override { return true; }
  arrow::Result<Model> Train(const BuildInput&) const override { throw std::bad_alloc(); }
  arrow::Result<format::SegmentMeta> Build(const BuildInput&, const Model*,
                                           const SegmentDirectory&) const override {
    ARROW_RETURN_NOT_OK(util::ParallelFor(
        1000, [](int64_t, int64_t) -> arrow::Status { throw std::bad_alloc(); }, 10));
    return format::SegmentMeta();
  }
  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>&,
                                           const std::vector<SegmentDirectory>&,
                                           const SegmentDirectory&) const override {
    throw std::logic_error("merge invariant");
  }
  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta&,
                                                     const SegmentDirectory&) const override {
    return Unsupported("a test family");
  }
  std::vector<std::string> RequiredFiles(const format::SegmentMeta&) const override { return {}; }
};

void RegisterThrowingFamily() {
  if (FindFamily("THROWING_TEST") == nullptr) {
    ASSERT_OK(RegisterFamily(std::make_unique<ThrowingFamily>()));
  }
}

TEST(IndexBuildExceptions, BecomeTypedErrorsNamingTheIndex) {
  RegisterThrowingFamily();
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 50)));
  const IndexSpec spec{"thrower", "id", "THROWING_TEST", {}};

  auto created = CreateIndex(*data, spec);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kResourceExhausted) << created.status().ToString();
  EXPECT_NE(
      created.status().message().find("out of memory while building a segment of index 'thrower'"),
      std::string::npos)
      << created.status().ToString();

  auto trained = TrainModel(*data, spec);
  ASSERT_FALSE(trained.ok());
  EXPECT_EQ(KindOf(trained.status()), ErrorKind::kResourceExhausted) << trained.status().ToString();
  EXPECT_NE(trained.status().message().find("training the model of index 'thrower'"),
            std::string::npos)
      << trained.status().ToString();

  format::SegmentMeta segment;
  segment.set_family("THROWING_TEST");
  segment.set_index_name("thrower");
  segment.set_uuid("123e4567-e89b-42d3-a456-426614174000");
  segment.set_dataset_uuid(data->manifest().dataset_uuid());
  auto merged = MergeSegments(*data, {segment});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(KindOf(merged.status()), ErrorKind::kInternal) << merged.status().ToString();
  EXPECT_NE(merged.status().message().find("merge invariant"), std::string::npos)
      << merged.status().ToString();
}

}  // namespace
}  // namespace tessera::index::build_exceptions_test
