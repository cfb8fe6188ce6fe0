// gtest assertions for arrow::Status and arrow::Result, naming the failed expression.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <gtest/gtest.h>

#include <utility>

#define TESSERA_EXPECT_STATUS_(check, expression)                     \
  do {                                                                \
    const ::arrow::Status _status = (expression);                     \
    check(_status.ok()) << #expression << ": " << _status.ToString(); \
  } while (false)

// The arrow::Status-returning expression succeeds.
#define ASSERT_OK(expression) TESSERA_EXPECT_STATUS_(ASSERT_TRUE, expression)
#define EXPECT_OK(expression) TESSERA_EXPECT_STATUS_(EXPECT_TRUE, expression)

#define TESSERA_CONCAT_INNER_(a, b) a##b
#define TESSERA_CONCAT_(a, b) TESSERA_CONCAT_INNER_(a, b)
#define TESSERA_ASSERT_OK_AND_ASSIGN_(name, lhs, expression)                 \
  auto name = (expression);                                                  \
  ASSERT_TRUE(name.ok()) << #expression << ": " << name.status().ToString(); \
  lhs = std::move(name).ValueUnsafe()
// The arrow::Result-returning expression succeeds; its value is assigned to `lhs` (a
// declaration or an lvalue).
#define ASSERT_OK_AND_ASSIGN(lhs, expression) \
  TESSERA_ASSERT_OK_AND_ASSIGN_(TESSERA_CONCAT_(tessera_result_, __LINE__), lhs, expression)
