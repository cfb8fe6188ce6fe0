// The arguments of table functions (table_functions.h): matched by name or position against
// what a function accepts, and read as constants of the type the function needs, each error
// naming the argument and pointing at it.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/sql/execution.h"
#include "tessera/sql/statement.h"

namespace tessera::sql {

struct ArgumentSpec {
  std::string name;
  bool required;
};

using Arguments = std::map<std::string, const expr::SyntaxNode*>;

// Unknown, repeated and missing required arguments are errors (kWrongArguments).
arrow::Result<Arguments> MatchArguments(const TableRef& call,
                                        const std::vector<ArgumentSpec>& specs,
                                        const ExecutionContext& context);

arrow::Result<std::string> StringArgument(const expr::SyntaxNode& node, std::string_view name,
                                          const ExecutionContext& context);
arrow::Result<uint64_t> UnsignedArgument(const expr::SyntaxNode& node, std::string_view name,
                                         const ExecutionContext& context);
arrow::Result<double> RealArgument(const expr::SyntaxNode& node, std::string_view name,
                                   const ExecutionContext& context);
arrow::Result<bool> BooleanArgument(const expr::SyntaxNode& node, std::string_view name,
                                    const ExecutionContext& context);
// An array literal of finite numbers: [0.1, -2, 3e-1].
arrow::Result<std::vector<float>> VectorArgument(const expr::SyntaxNode& node,
                                                 std::string_view name,
                                                 const ExecutionContext& context);

// The table a function's "table" argument (or `table_key`) names ("db.tbl"), pinned at the
// "version" argument (or `version_key`) when given.
arrow::Result<PinnedTable> PinTableArgument(const Arguments& arguments,
                                            const ExecutionContext& context,
                                            Access access = Access::kSelect,
                                            std::string_view table_key = "table",
                                            std::string_view version_key = "version");

// search functions (search_functions.cc)
struct FunctionRows;
arrow::Result<FunctionRows> VectorSearch(const TableRef& call, const ExecutionContext& context);
arrow::Result<FunctionRows> FullTextSearch(const TableRef& call, const ExecutionContext& context);
arrow::Result<FunctionRows> HybridSearch(const TableRef& call, const ExecutionContext& context);
arrow::Result<FunctionRows> KnnJoin(const TableRef& call, const ExecutionContext& context);

}  // namespace tessera::sql
