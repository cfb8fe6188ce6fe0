// Assertion helpers shared by the query tests.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <gtest/gtest.h>

#include <utility>

// Expects an arrow::Status-returning expression to succeed.
#define QUERY_EXPECT_OK(expression)                                         \
  do {                                                                      \
    const ::arrow::Status _status = (expression);                           \
    EXPECT_TRUE(_status.ok()) << #expression << ": " << _status.ToString(); \
  } while (false)

#define QUERY_ASSIGN_CONCAT_INNER(a, b) a##b
#define QUERY_ASSIGN_CONCAT(a, b) QUERY_ASSIGN_CONCAT_INNER(a, b)
#define QUERY_ASSERT_OK_AND_ASSIGN_IMPL(name, lhs, expression)               \
  auto name = (expression);                                                  \
  ASSERT_TRUE(name.ok()) << #expression << ": " << name.status().ToString(); \
  lhs = std::move(name).ValueUnsafe()
// Asserts that an arrow::Result-returning expression succeeds and assigns its value to `lhs`
// (a declaration or an lvalue).
#define ASSERT_OK_AND_ASSIGN(lhs, expression) \
  QUERY_ASSERT_OK_AND_ASSIGN_IMPL(QUERY_ASSIGN_CONCAT(query_result_, __LINE__), lhs, expression)
