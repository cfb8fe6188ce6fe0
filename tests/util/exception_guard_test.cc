// util::GuardExceptions and OperationName (util/exception_guard.h): what a body throws comes
// back as an error of the right kind, naming the operation.
#include "tessera/util/exception_guard.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::util::exception_guard_test {
namespace {

TEST(ExceptionGuard, ReturnsTheBodysValueWhenNothingIsThrown) {
  auto result = GuardExceptions("adding", []() -> arrow::Result<int> { return 42; });
  ASSERT_OK_AND_ASSIGN(int value, std::move(result));
  EXPECT_EQ(value, 42);
  const arrow::Status failed =
      GuardExceptions("adding", [] { return InvalidArgument("bad input"); });
  EXPECT_EQ(KindOf(failed), ErrorKind::kInvalidArgument);
  EXPECT_EQ(failed.message(), "bad input");
}

TEST(ExceptionGuard, AllocationFailureIsResourceExhaustedNamingTheOperation) {
  auto result = GuardExceptions("sorting 5 rows", []() -> arrow::Result<int> {
    // What a std::vector asked for more than the machine has throws.
    throw std::bad_alloc();
  });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kResourceExhausted);
  EXPECT_NE(result.status().message().find("out of memory while sorting 5 rows"), std::string::npos)
      << result.status().ToString();
}

TEST(ExceptionGuard, OtherExceptionsAreInternalWithTheirMessage) {
  const arrow::Status status = GuardExceptions(
      "parsing", []() -> arrow::Status { throw std::logic_error("unreachable branch"); });
  EXPECT_EQ(KindOf(status), ErrorKind::kInternal);
  EXPECT_NE(status.message().find("parsing"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("unreachable branch"), std::string::npos) << status.ToString();
  const arrow::Status unknown = GuardExceptions("parsing", []() -> arrow::Status { throw 7; });
  EXPECT_EQ(KindOf(unknown), ErrorKind::kInternal);
}

TEST(ExceptionGuard, OperationNamesNestAndRestore) {
  EXPECT_EQ(CurrentOperation(), "a parallel task");
  {
    const OperationName outer("building index 'v'");
    EXPECT_EQ(CurrentOperation(), "building index 'v'");
    {
      const OperationName inner("training its model");
      EXPECT_EQ(CurrentOperation(), "training its model");
    }
    EXPECT_EQ(CurrentOperation(), "building index 'v'");
  }
  EXPECT_EQ(CurrentOperation(), "a parallel task");
}

}  // namespace
}  // namespace tessera::util::exception_guard_test
