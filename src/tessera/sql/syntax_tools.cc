#include "tessera/sql/syntax_tools.h"

#include <algorithm>
#include <cctype>

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

bool IsAggregateName(std::string_view name) {
  return name == "count" || name == "sum" || name == "min" || name == "max" || name == "avg";
}

bool ContainsAggregate(const expr::SyntaxNode& node) {
  if (IsAggregateCall(node)) return true;
  return std::any_of(node.children.begin(), node.children.end(),
                     [](const auto& child) { return ContainsAggregate(*child); });
}

std::unique_ptr<expr::SyntaxNode> MakeColumnReference(std::string field, int position) {
  auto node = std::make_unique<expr::SyntaxNode>();
  node->kind = expr::SyntaxNode::Kind::kColumn;
  node->position = position;
  node->name = std::move(field);
  return node;
}

}  // namespace tessera::sql
