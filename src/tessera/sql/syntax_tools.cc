#include "tessera/sql/syntax_tools.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/functions.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/names.h"
#include "tessera/status.h"

namespace tessera::sql {

std::unique_ptr<expr::SyntaxNode> CloneSyntax(const expr::SyntaxNode& node) {
  auto copy = std::make_unique<expr::SyntaxNode>();
  copy->kind = node.kind;
  copy->position = node.position;
  copy->name = node.name;
  copy->literal = node.literal;
  copy->op = node.op;
  copy->negated = node.negated;
  copy->has_operand = node.has_operand;
  copy->has_else = node.has_else;
  copy->qualifier = node.qualifier;
  copy->distinct = node.distinct;
  copy->star = node.star;
  copy->children.reserve(node.children.size());
  for (const auto& child : node.children) copy->children.push_back(CloneSyntax(*child));
  return copy;
}

namespace {

void AppendKey(const expr::SyntaxNode& node, std::string* key) {
  // Names as they are: calls are lower case already, and columns are compared once resolved
  // to plan fields, which may differ only by case.
  *key +=
      Concat("(", static_cast<int>(node.kind), ":", AsciiLower(node.qualifier), ".", node.name, ":",
             static_cast<int>(node.op), node.negated ? "!" : "", node.has_operand ? "o" : "",
             node.has_else ? "e" : "", node.distinct ? "d" : "", node.star ? "*" : "");
  if (node.kind == expr::SyntaxNode::Kind::kLiteral) {
    const auto& literal = node.literal;
    *key += Concat("L", static_cast<int>(literal.kind), ":", literal.boolean ? 1 : 0, ":",
                   static_cast<int64_t>(literal.integer >> 64), ":",
                   static_cast<uint64_t>(literal.integer), ":", literal.real, ":",
                   literal.string.size(), ":", literal.string);
  }
  for (const auto& child : node.children) AppendKey(*child, key);
  *key += ")";
}

}  // namespace

std::string SyntaxKey(const expr::SyntaxNode& node) {
  std::string key;
  AppendKey(node, &key);
  return key;
}

namespace {

// SQL's aggregates, and the predicates the binder knows without a FunctionSpec.
constexpr std::array<std::string_view, 5> kAggregateNames = {"count", "sum", "min", "max", "avg"};
constexpr std::array<std::string_view, 2> kArrayPredicates = {"array_has_any", "array_has_all"};

bool IsOneOf(std::string_view name, const auto& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool IsAggregateName(std::string_view name) { return IsOneOf(name, kAggregateNames); }

namespace {

const expr::SyntaxNode* FindFirst(const expr::SyntaxNode& node,
                                  bool (*wanted)(const expr::SyntaxNode&)) {
  if (wanted(node)) return &node;
  for (const auto& child : node.children) {
    if (const auto* found = FindFirst(*child, wanted)) return found;
  }
  return nullptr;
}

bool IsUnknownCall(const expr::SyntaxNode& node) {
  return node.kind == expr::SyntaxNode::Kind::kCall && !IsKnownFunctionName(node.name);
}

}  // namespace

bool IsKnownFunctionName(std::string_view name) {
  return IsAggregateName(name) || IsOneOf(name, kArrayPredicates) ||
         expr::FindFunction(name) != nullptr;
}

std::vector<std::string> KnownFunctionNames() {
  std::vector<std::string> names = expr::FunctionNames();
  names.insert(names.end(), kAggregateNames.begin(), kAggregateNames.end());
  names.insert(names.end(), kArrayPredicates.begin(), kArrayPredicates.end());
  return names;
}

const expr::SyntaxNode* FindAggregate(const expr::SyntaxNode& node) {
  return FindFirst(node, [](const expr::SyntaxNode& n) { return IsAggregateCall(n); });
}

const expr::SyntaxNode* FindUnknownFunction(const expr::SyntaxNode& node) {
  return FindFirst(node, IsUnknownCall);
}

arrow::Status UnknownFunctionError(const expr::SyntaxNode& call, const ExecutionContext& context) {
  const std::string hint = expr::DidYouMean(expr::ClosestNames(call.name, KnownFunctionNames()));
  return SqlError(SqlCode::kUnknownFunction, ErrorKind::kNotFound, context.At(call.position),
                  "FUNCTION ", call.name, " does not exist",
                  hint.empty() ? "; docs/sql.md lists the functions" : "; " + hint);
}

std::unique_ptr<expr::SyntaxNode> MakeColumnReference(std::string field, int position) {
  auto node = std::make_unique<expr::SyntaxNode>();
  node->kind = expr::SyntaxNode::Kind::kColumn;
  node->position = position;
  node->name = std::move(field);
  return node;
}

}  // namespace tessera::sql
