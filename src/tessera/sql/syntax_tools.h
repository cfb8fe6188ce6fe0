// Operations on expression syntax trees (expr/syntax.h) that the SQL planner needs: copies (a
// statement is planned from copies, its names rewritten to plan fields), a structural key (to
// find a GROUP BY expression again in the select list) and aggregate calls.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/expr/syntax.h"

namespace tessera::sql {

std::unique_ptr<expr::SyntaxNode> CloneSyntax(const expr::SyntaxNode& node);

// Equal for trees that mean the same expression however they were spelled or placed: kinds,
// names (lower case), literals and shape; positions ignored.
std::string SyntaxKey(const expr::SyntaxNode& node);

// count, sum, min, max, avg.
bool IsAggregateName(std::string_view name);
inline bool IsAggregateCall(const expr::SyntaxNode& node) {
  return node.kind == expr::SyntaxNode::Kind::kCall && IsAggregateName(node.name);
}
// The first aggregate call of the tree (pre-order), or null.
const expr::SyntaxNode* FindAggregate(const expr::SyntaxNode& node);
inline bool ContainsAggregate(const expr::SyntaxNode& node) {
  return FindAggregate(node) != nullptr;
}
// Whether the expression language (expr/functions.h) or SQL's aggregates define `name`.
bool IsKnownFunctionName(std::string_view name);
// The first call (pre-order) of a function no one defines, or null.
const expr::SyntaxNode* FindUnknownFunction(const expr::SyntaxNode& node);
// The names IsKnownFunctionName accepts, for suggestions.
std::vector<std::string> KnownFunctionNames();

// A column reference to `field` at `position`.
std::unique_ptr<expr::SyntaxNode> MakeColumnReference(std::string field, int position);

}  // namespace tessera::sql
