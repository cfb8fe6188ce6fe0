// Names of gtest parameters that are Arrow types ("timestamp[ms, tz=UTC]" becomes
// "timestamp_ms__tz_UTC_"), for INSTANTIATE_TEST_SUITE_P over column types, and the fixture the
// typed family tests share: Arrow's compute kernels registered before each test.
#pragma once

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>

#include "support/status_assertions.h"

namespace tessera::testing {

// The parameter's type with every character that is not a letter or digit replaced by '_'.
inline std::string TypeName(
    const ::testing::TestParamInfo<std::shared_ptr<arrow::DataType>>& info) {
  std::string name;
  for (char c : info.param->ToString()) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

// A test parameterized by a column type, with Arrow compute initialized.
class ColumnTypeTest : public ::testing::TestWithParam<std::shared_ptr<arrow::DataType>> {
 protected:
  void SetUp() override { ASSERT_OK(arrow::compute::Initialize()); }
};

}  // namespace tessera::testing
