// OperationControl (util/operation_control.h): phases and their reports, the report interval,
// the forced report at a phase's end, cancellation and its message, and the current control
// reaching ParallelFor's workers.
#include "tessera/util/operation_control.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::util::operation_control_test {
namespace {

struct Seen {
  std::string phase;
  uint64_t done;
  uint64_t total;
  std::string unit;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Seen> reports;
  OperationControl::ProgressCallback callback() {
    return [this](const ProgressReport& report) {
      std::lock_guard<std::mutex> lock(mutex);
      reports.push_back(
          {std::string(report.phase), report.done, report.total, std::string(report.unit)});
    };
  }
};

TEST(OperationControl, EveryPhaseStartAndEndIsReportedAndCountsInBetweenAreRateLimited) {
  Recorder recorder;
  OperationControl control(recorder.callback(), std::chrono::hours(1));
  control.BeginPhase("building", 10, "rows");
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(control.Advance(1).ok());
  ASSERT_TRUE(control.Advance(1).ok());  // past the total: not reported again
  control.BeginPhase("writing", 0, "rows");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(control.Advance(100).ok());
  ASSERT_EQ(recorder.reports.size(), 3u);
  EXPECT_EQ(recorder.reports[0].phase, "building");
  EXPECT_EQ(recorder.reports[0].done, 0u);
  EXPECT_EQ(recorder.reports[0].total, 10u);
  EXPECT_EQ(recorder.reports[1].phase, "building");
  EXPECT_EQ(recorder.reports[1].done, 10u);  // the end of a phase of known size
  EXPECT_EQ(recorder.reports[2].phase, "writing");
  EXPECT_EQ(recorder.reports[2].total, 0u);  // unknown in advance
  EXPECT_EQ(recorder.reports[2].unit, "rows");
}

TEST(OperationControl, WithAZeroIntervalEveryAdvanceIsReportedInOrder) {
  Recorder recorder;
  OperationControl control(recorder.callback(), std::chrono::milliseconds(0));
  control.BeginPhase("merging", 3, "segments");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(control.Advance(1).ok());
  ASSERT_EQ(recorder.reports.size(), 4u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(recorder.reports[i].done, i);
}

TEST(OperationControl, ACancellationRequestEndsTheNextAdvanceWithCancelled) {
  OperationControl control;
  control.BeginPhase("building", 1000, "rows");
  ASSERT_TRUE(control.Advance(250).ok());
  ASSERT_TRUE(control.CheckCancelled().ok());
  control.RequestCancel();
  EXPECT_TRUE(control.cancel_requested());
  const arrow::Status status = control.Advance(250);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kCancelled);
  EXPECT_EQ(status.message(),
            "cancelled while building (500 of 1000 rows done); nothing was committed");
  EXPECT_EQ(KindOf(control.CheckCancelled()), ErrorKind::kCancelled);
}

TEST(OperationControl, TheFreeFunctionsDoNothingWithoutACurrentControl) {
  ASSERT_EQ(CurrentControl(), nullptr);
  BeginPhase("building", 1, "rows");
  EXPECT_TRUE(AdvanceProgress(1).ok());
  EXPECT_TRUE(CheckCancelled().ok());
}

TEST(OperationControl, ScopesNestAndANullScopeKeepsTheOuterControl) {
  OperationControl outer;
  OperationControl inner;
  {
    const ControlScope outer_scope(&outer);
    EXPECT_EQ(CurrentControl(), &outer);
    {
      const ControlScope keep(nullptr);
      EXPECT_EQ(CurrentControl(), &outer);
      const ControlScope inner_scope(&inner);
      EXPECT_EQ(CurrentControl(), &inner);
    }
    EXPECT_EQ(CurrentControl(), &outer);
  }
  EXPECT_EQ(CurrentControl(), nullptr);
}

TEST(OperationControl, ParallelForWorkersAdvanceAndSeeTheCallersCancellation) {
  Recorder recorder;
  OperationControl control(recorder.callback(), std::chrono::milliseconds(0));
  const ControlScope scope(&control);
  BeginPhase("building", 1000, "rows");
  std::atomic<int> outside_the_caller{0};
  ASSERT_TRUE(ParallelFor(
                  1000,
                  [&](int64_t begin, int64_t end) {
                    if (CurrentControl() != &control) ++outside_the_caller;
                    return AdvanceProgress(static_cast<uint64_t>(end - begin));
                  },
                  /*min_chunk=*/10)
                  .ok());
  EXPECT_EQ(outside_the_caller.load(), 0);
  uint64_t last = 0;
  for (const auto& report : recorder.reports) {
    EXPECT_GE(report.done, last);  // reports never go backwards within the phase
    last = report.done;
  }
  EXPECT_EQ(last, 1000u);

  control.RequestCancel();
  const arrow::Status cancelled =
      ParallelFor(100, [&](int64_t, int64_t) { return AdvanceProgress(1); });
  EXPECT_EQ(KindOf(cancelled), ErrorKind::kCancelled);
}

}  // namespace
}  // namespace tessera::util::operation_control_test
