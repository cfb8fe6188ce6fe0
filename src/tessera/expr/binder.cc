#include "tessera/expr/binder.h"

#include <optional>
#include <unordered_set>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/like_pattern.h"
#include "tessera/expr/literal.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

using ColumnPtr = std::shared_ptr<const Column>;

// Hash and equality of scalars, for removing duplicate list literals. -0.0 and 0.0 stay apart
// (both are kept; IN, being `= ANY`, matches the same rows for either).
struct ScalarHash {
  size_t operator()(const std::shared_ptr<arrow::Scalar>& scalar) const { return scalar->hash(); }
};
struct ScalarEqual {
  bool operator()(const std::shared_ptr<arrow::Scalar>& a,
                  const std::shared_ptr<arrow::Scalar>& b) const {
    return a->Equals(*b, arrow::EqualOptions::Defaults().signed_zeros_equal(false));
  }
};

std::string Describe(const Column& column) {
  return "column '" + column.name() + "' (" + column.type()->ToString() + ")";
}

class Binder {
 public:
  Binder(const std::shared_ptr<arrow::Schema>& schema, std::string_view text)
      : schema_(schema), text_(text) {}

  arrow::Result<NodePtr> Predicate(const SyntaxNode& node) {
    switch (node.kind) {
      case SyntaxNode::Kind::kAnd:
      case SyntaxNode::Kind::kOr: {
        std::vector<NodePtr> children;
        for (const auto& child : node.children) {
          ARROW_ASSIGN_OR_RAISE(auto bound, Predicate(*child));
          children.push_back(std::move(bound));
        }
        return node.kind == SyntaxNode::Kind::kAnd ? MakeAnd(std::move(children), node.position)
                                                   : MakeOr(std::move(children), node.position);
      }
      case SyntaxNode::Kind::kNot: {
        ARROW_ASSIGN_OR_RAISE(auto child, Predicate(*node.children[0]));
        return MakeNot(std::move(child), node.position);
      }
      case SyntaxNode::Kind::kCompare:
        return BindCompare(node.op, *node.children[0], *node.children[1], node.position);
      case SyntaxNode::Kind::kIn:
        return BindIn(node);
      case SyntaxNode::Kind::kBetween:
        return BindBetween(node);
      case SyntaxNode::Kind::kIsNull:
        return BindIsNull(node);
      case SyntaxNode::Kind::kLike:
        return BindLike(node);
      case SyntaxNode::Kind::kCall:
        return BindCall(node);
      case SyntaxNode::Kind::kColumn: {
        ARROW_ASSIGN_OR_RAISE(auto column, BindColumn(node));
        if (column->type()->id() != arrow::Type::BOOL) {
          return Error(node.position, "expected a predicate, but ", Describe(*column),
                       " is not boolean; compare it with a value, e.g. ",
                       RenderColumnName(column->name()), " = ...");
        }
        return column;
      }
      case SyntaxNode::Kind::kLiteral:
        if (node.literal.kind == LiteralValue::Kind::kNull) {
          return BooleanLiteral(std::nullopt, node.position);
        }
        if (node.literal.kind == LiteralValue::Kind::kBoolean) {
          return BooleanLiteral(node.literal.boolean, node.position);
        }
        return Error(node.position, "expected a predicate, found ", DescribeLiteral(node.literal));
      case SyntaxNode::Kind::kArray:
        return Error(node.position,
                     "an array literal [...] is only valid as an argument of "
                     "array_has_any / array_has_all");
    }
    return Error(node.position, "unexpected construct");
  }

 private:
  template <typename... Args>
  arrow::Status Error(int position, Args&&... args) const {
    return FilterError(ErrorKind::kInvalidArgument, text_, position, std::forward<Args>(args)...);
  }

  template <typename... Args>
  arrow::Status Mismatch(int position, Args&&... args) const {
    return Error(position, "type mismatch: ", std::forward<Args>(args)...);
  }

  // --- nodes -------------------------------------------------------------------------------

  static NodePtr BooleanLiteral(std::optional<bool> value, int position) {
    auto scalar = value ? std::make_shared<arrow::BooleanScalar>(*value)
                        : std::make_shared<arrow::BooleanScalar>();
    return std::make_shared<Literal>(std::move(scalar), position);
  }

  // What a bound predicate is known to be at bind time.
  enum class Truth { kNotConstant, kTrue, kFalse, kUnknown };

  static Truth LiteralTruth(const Node& node) {
    if (node.kind() != NodeKind::kLiteral) return Truth::kNotConstant;
    const auto& value = node.As<Literal>().value();
    if (!value->is_valid) return Truth::kUnknown;
    return static_cast<const arrow::BooleanScalar&>(*value).value ? Truth::kTrue : Truth::kFalse;
  }

  // Kleene identities only (TRUE AND x = x, FALSE AND x = FALSE even for unknown x), so the
  // simplified tree gives the same answer on every row.
  static NodePtr MakeAnd(std::vector<NodePtr> children, int position) {
    std::vector<NodePtr> flat;
    for (auto& child : children) {
      if (child->kind() == NodeKind::kAnd) {
        for (const auto& grandchild : child->As<And>().children()) flat.push_back(grandchild);
        continue;
      }
      const Truth truth = LiteralTruth(*child);
      if (truth == Truth::kTrue) continue;
      if (truth == Truth::kFalse) return child;
      flat.push_back(std::move(child));
    }
    if (flat.empty()) return BooleanLiteral(true, position);
    if (flat.size() == 1) return flat[0];
    return std::make_shared<And>(std::move(flat), position);
  }

  static NodePtr MakeOr(std::vector<NodePtr> children, int position) {
    std::vector<NodePtr> flat;
    for (auto& child : children) {
      if (child->kind() == NodeKind::kOr) {
        for (const auto& grandchild : child->As<Or>().children()) flat.push_back(grandchild);
        continue;
      }
      const Truth truth = LiteralTruth(*child);
      if (truth == Truth::kFalse) continue;
      if (truth == Truth::kTrue) return child;
      flat.push_back(std::move(child));
    }
    if (flat.empty()) return BooleanLiteral(false, position);
    if (flat.size() == 1) return flat[0];
    return std::make_shared<Or>(std::move(flat), position);
  }

  static NodePtr MakeNot(NodePtr child, int position) {
    switch (LiteralTruth(*child)) {
      case Truth::kTrue:
        return BooleanLiteral(false, position);
      case Truth::kFalse:
        return BooleanLiteral(true, position);
      case Truth::kUnknown:
        return BooleanLiteral(std::nullopt, position);
      case Truth::kNotConstant:
        break;
    }
    if (child->kind() == NodeKind::kNot) return child->As<Not>().child_ptr();
    return std::make_shared<Not>(std::move(child), position);
  }

  // The outcome of a comparison that the types alone decide (u8 = 300): `value` for rows
  // where the column is set, unknown where it is null, written with ordinary nodes.
  static NodePtr DecidedUnlessNull(const ColumnPtr& column, bool value, int position) {
    auto is_null = std::make_shared<IsNull>(column, position);
    if (value) {
      return std::make_shared<Or>(std::vector<NodePtr>{std::make_shared<Not>(is_null, position),
                                                       BooleanLiteral(std::nullopt, position)},
                                  position);
    }
    return std::make_shared<And>(
        std::vector<NodePtr>{is_null, BooleanLiteral(std::nullopt, position)}, position);
  }

  // --- columns and literals ------------------------------------------------------------------

  arrow::Result<ColumnPtr> BindColumn(const SyntaxNode& node) {
    const std::vector<int> indices = schema_->GetAllFieldIndices(node.name);
    if (indices.size() > 1) {
      return FilterError(ErrorKind::kAmbiguous, text_, node.position, "column name '", node.name,
                         "' is ambiguous: the schema has ", indices.size(), " fields of that name");
    }
    if (indices.empty()) {
      std::vector<std::string> names;
      for (const auto& field : schema_->fields()) names.push_back(field->name());
      const auto suggestions = ClosestNames(node.name, names);
      if (!suggestions.empty()) {
        return Error(node.position, "unknown column '", node.name, "'; ", DidYouMean(suggestions));
      }
      std::string listed;
      for (size_t i = 0; i < names.size() && i < 10; ++i) {
        listed += (i > 0 ? ", " : "") + RenderColumnName(names[i]);
      }
      if (names.size() > 10) listed += ", ...";
      return Error(node.position, "unknown column '", node.name,
                   "'; the columns are: ", listed.empty() ? "(none)" : listed);
    }
    const auto& field = schema_->field(indices[0]);
    return std::make_shared<Column>(field->name(), indices[0], field->type(), node.position);
  }

  arrow::Result<ColumnPtr> ExpectColumn(const SyntaxNode& node, std::string_view context) {
    if (node.kind == SyntaxNode::Kind::kColumn) return BindColumn(node);
    return Error(node.position, context, " needs a column here, found ",
                 DescribeLiteral(node.literal));
  }

  // Checks that a column's type can meet `op` at all, before looking at the other side.
  arrow::Status CheckComparable(const Column& column, std::optional<CompareOp> op,
                                std::string_view operation, int position) const {
    switch (FamilyOf(*column.type())) {
      case TypeFamily::kList:
        return Mismatch(position, Describe(column), " cannot be used with ", operation,
                        "; query lists with array_has_any(", RenderColumnName(column.name()),
                        ", [...]), array_has_all(...) or IS [NOT] NULL");
      case TypeFamily::kVector:
        return Mismatch(position, Describe(column),
                        " is a vector (fixed_size_list) and cannot be used with ", operation,
                        "; only IS [NOT] NULL applies to it");
      case TypeFamily::kOther:
        return FilterError(ErrorKind::kUnsupported, text_, position, "filters cannot compare ",
                           Describe(column), " yet; only IS [NOT] NULL applies to this type");
      case TypeFamily::kBinary:
        if (op && *op != CompareOp::kEqual && *op != CompareOp::kNotEqual) {
          return Mismatch(position, Describe(column),
                          " supports only =, !=, IN and IS [NOT] NULL, not ", operation);
        }
        return arrow::Status::OK();
      default:
        return arrow::Status::OK();
    }
  }

  // Resolves `literal` against the column's type, turning failures into positioned errors.
  arrow::Result<ResolvedLiteral> Resolve(const Column& column,
                                         const std::shared_ptr<arrow::DataType>& type,
                                         const SyntaxNode& literal, std::string_view against) {
    auto resolved = ResolveLiteral(literal.literal, type);
    if (resolved.ok()) return resolved;
    if (resolved.status().IsTypeError()) {
      return Mismatch(literal.position, "cannot compare ", against, " with ",
                      DescribeLiteral(literal.literal));
    }
    return Error(literal.position, resolved.status().message());
  }

  // --- predicates ----------------------------------------------------------------------------

  arrow::Result<NodePtr> BindCompare(CompareOp op, const SyntaxNode& left, const SyntaxNode& right,
                                     int position) {
    const bool left_literal = left.kind == SyntaxNode::Kind::kLiteral;
    const bool right_literal = right.kind == SyntaxNode::Kind::kLiteral;
    if (left_literal && right_literal) return FoldCompare(op, left, right, position);
    if (left_literal) return BindCompare(FlipCompareOp(op), right, left, position);

    ARROW_ASSIGN_OR_RAISE(auto column, BindColumn(left));
    const std::string operation = "'" + std::string(CompareOpSymbol(op)) + "'";
    RETURN_NOT_OK(CheckComparable(*column, op, operation, position));
    if (!right_literal) {
      ARROW_ASSIGN_OR_RAISE(auto other, BindColumn(right));
      RETURN_NOT_OK(CheckComparable(*other, op, operation, position));
      auto common = ComparisonType(column->type(), other->type());
      if (!common.ok()) {
        return Mismatch(position, "cannot compare ", Describe(*column), " with ", Describe(*other),
                        common.status().message() == "timestamps with and without time zone"
                            ? " (one timestamp has a time zone, the other has none)"
                            : "");
      }
      return std::make_shared<Compare>(op, std::move(column), std::move(other), position);
    }
    if (right.literal.kind == LiteralValue::Kind::kNull) {
      // SQL: a comparison with NULL is unknown on every row, even a null one; `x IS NULL` is
      // the test for nulls.
      return BooleanLiteral(std::nullopt, position);
    }
    ARROW_ASSIGN_OR_RAISE(auto resolved,
                          Resolve(*column, column->type(), right, Describe(*column)));
    if (resolved.exact) {
      return std::make_shared<Compare>(
          op, column, std::make_shared<Literal>(resolved.exact, right.position), position);
    }
    auto bound = [&](CompareOp bound_op, const std::shared_ptr<arrow::Scalar>& value) -> NodePtr {
      return std::make_shared<Compare>(bound_op, column,
                                       std::make_shared<Literal>(value, right.position), position);
    };
    switch (op) {
      case CompareOp::kEqual:
        return DecidedUnlessNull(column, false, position);
      case CompareOp::kNotEqual:
        return DecidedUnlessNull(column, true, position);
      case CompareOp::kLess:
      case CompareOp::kLessEqual:
        return resolved.below ? bound(CompareOp::kLessEqual, resolved.below)
                              : bound(CompareOp::kLess, resolved.above);
      case CompareOp::kGreater:
      case CompareOp::kGreaterEqual:
        return resolved.above ? bound(CompareOp::kGreaterEqual, resolved.above)
                              : bound(CompareOp::kGreater, resolved.below);
    }
    return Error(position, "unexpected comparison");
  }

  arrow::Result<NodePtr> FoldCompare(CompareOp op, const SyntaxNode& left, const SyntaxNode& right,
                                     int position) {
    if (left.literal.kind == LiteralValue::Kind::kNull ||
        right.literal.kind == LiteralValue::Kind::kNull) {
      return BooleanLiteral(std::nullopt, position);
    }
    auto result = CompareLiterals(left.literal, op, right.literal);
    if (result.ok()) return BooleanLiteral(*result, position);
    if (result.status().IsTypeError()) {
      return Mismatch(position, "cannot compare ", DescribeLiteral(left.literal), " with ",
                      DescribeLiteral(right.literal));
    }
    return Error(position, result.status().message());
  }

  arrow::Result<NodePtr> BindIn(const SyntaxNode& node) {
    const SyntaxNode& operand = *node.children[0];
    for (size_t i = 1; i < node.children.size(); ++i) {
      const SyntaxNode& item = *node.children[i];
      if (item.kind != SyntaxNode::Kind::kLiteral) {
        return Error(item.position, "IN lists hold literals only, found column '", item.name,
                     "'; compare columns with = instead");
      }
    }
    NodePtr result;
    if (operand.kind == SyntaxNode::Kind::kLiteral) {
      ARROW_ASSIGN_OR_RAISE(result, FoldIn(node));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto column, BindColumn(operand));
      RETURN_NOT_OK(CheckComparable(*column, std::nullopt, "IN", node.position));
      std::vector<std::shared_ptr<arrow::Scalar>> values;
      std::unordered_set<std::shared_ptr<arrow::Scalar>, ScalarHash, ScalarEqual> seen;
      bool has_null = false;
      for (size_t i = 1; i < node.children.size(); ++i) {
        const SyntaxNode& item = *node.children[i];
        if (item.literal.kind == LiteralValue::Kind::kNull) {
          has_null = true;
          continue;
        }
        ARROW_ASSIGN_OR_RAISE(auto resolved,
                              Resolve(*column, column->type(), item, Describe(*column)));
        // A value the column's type cannot hold matches no row: drop it.
        if (resolved.exact && seen.insert(resolved.exact).second) {
          values.push_back(resolved.exact);
        }
      }
      if (values.empty()) {
        result = has_null ? BooleanLiteral(std::nullopt, node.position)
                          : DecidedUnlessNull(column, false, node.position);
      } else {
        result =
            std::make_shared<InList>(std::move(column), std::move(values), has_null, node.position);
      }
    }
    return node.negated ? MakeNot(std::move(result), node.position) : result;
  }

  // literal IN (literals): SQL semantics, so NULL IN (...) and 1 IN (2, NULL) are unknown.
  arrow::Result<NodePtr> FoldIn(const SyntaxNode& node) {
    const SyntaxNode& operand = *node.children[0];
    if (operand.literal.kind == LiteralValue::Kind::kNull) {
      return BooleanLiteral(std::nullopt, node.position);
    }
    bool saw_null = false;
    for (size_t i = 1; i < node.children.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(
          auto equal, FoldCompare(CompareOp::kEqual, operand, *node.children[i], node.position));
      const Truth truth = LiteralTruth(*equal);
      if (truth == Truth::kUnknown) saw_null = true;
      if (truth == Truth::kTrue) return BooleanLiteral(true, node.position);
    }
    return saw_null ? BooleanLiteral(std::nullopt, node.position)
                    : BooleanLiteral(false, node.position);
  }

  arrow::Result<NodePtr> BindBetween(const SyntaxNode& node) {
    const SyntaxNode& operand = *node.children[0];
    ARROW_ASSIGN_OR_RAISE(auto lower, BindCompare(CompareOp::kGreaterEqual, operand,
                                                  *node.children[1], node.position));
    ARROW_ASSIGN_OR_RAISE(
        auto upper, BindCompare(CompareOp::kLessEqual, operand, *node.children[2], node.position));
    NodePtr result;
    const auto literal_bound = [](const NodePtr& bound, CompareOp op) -> const Compare* {
      if (bound->kind() != NodeKind::kCompare) return nullptr;
      const auto& compare = bound->As<Compare>();
      if (compare.op() != op || compare.right().kind() != NodeKind::kLiteral) return nullptr;
      return &compare;
    };
    const Compare* low = literal_bound(lower, CompareOp::kGreaterEqual);
    const Compare* high = literal_bound(upper, CompareOp::kLessEqual);
    if (operand.kind == SyntaxNode::Kind::kColumn && low && high) {
      auto column = std::static_pointer_cast<const Column>(low->left_ptr());
      result = std::make_shared<Between>(std::move(column), low->right().As<Literal>().value(),
                                         high->right().As<Literal>().value(), node.position);
    } else {
      result = MakeAnd({std::move(lower), std::move(upper)}, node.position);
    }
    return node.negated ? MakeNot(std::move(result), node.position) : result;
  }

  arrow::Result<NodePtr> BindIsNull(const SyntaxNode& node) {
    const SyntaxNode& operand = *node.children[0];
    if (operand.kind == SyntaxNode::Kind::kLiteral) {
      const bool is_null = operand.literal.kind == LiteralValue::Kind::kNull;
      return BooleanLiteral(is_null != node.negated, node.position);
    }
    ARROW_ASSIGN_OR_RAISE(auto column, BindColumn(operand));
    NodePtr result = std::make_shared<IsNull>(std::move(column), node.position);
    return node.negated ? MakeNot(std::move(result), node.position) : result;
  }

  arrow::Result<NodePtr> BindLike(const SyntaxNode& node) {
    const bool case_insensitive = node.name == "ilike";
    const std::string keyword = case_insensitive ? "ILIKE" : "LIKE";
    const SyntaxNode& pattern = *node.children[1];
    ARROW_ASSIGN_OR_RAISE(auto column, ExpectColumn(*node.children[0], keyword));
    if (FamilyOf(*column->type()) != TypeFamily::kString) {
      return Mismatch(column->position(), keyword, " applies to string columns, but ",
                      Describe(*column), " is not a string");
    }
    std::string escape(kDefaultLikeEscape);
    bool null_escape = false;
    if (node.children.size() > 2) {
      const SyntaxNode& clause = *node.children[2];
      if (clause.kind != SyntaxNode::Kind::kLiteral ||
          (clause.literal.kind != LiteralValue::Kind::kString &&
           clause.literal.kind != LiteralValue::Kind::kNull)) {
        return Error(clause.position, "ESCAPE takes a string literal of one character, found ",
                     clause.kind == SyntaxNode::Kind::kColumn ? "column '" + clause.name + "'"
                                                              : DescribeLiteral(clause.literal));
      }
      null_escape = clause.literal.kind == LiteralValue::Kind::kNull;
      escape = clause.literal.string;
      const auto checked = CheckLikeEscape(escape);
      if (!checked.ok()) return Error(clause.position, checked.message());
    }
    std::shared_ptr<const Column> pattern_column;
    if (pattern.kind == SyntaxNode::Kind::kColumn) {
      ARROW_ASSIGN_OR_RAISE(pattern_column, BindColumn(pattern));
      if (FamilyOf(*pattern_column->type()) != TypeFamily::kString) {
        return Mismatch(pattern.position, "the ", keyword, " pattern must be a string, but ",
                        Describe(*pattern_column), " is not a string");
      }
    } else if (pattern.literal.kind != LiteralValue::Kind::kNull &&
               pattern.literal.kind != LiteralValue::Kind::kString) {
      return Mismatch(pattern.position, "the ", keyword, " pattern for ", Describe(*column),
                      " must be a string literal, found ", DescribeLiteral(pattern.literal));
    }
    // A NULL pattern or escape is unknown on every row, as a comparison with NULL is.
    if (null_escape || (pattern.kind == SyntaxNode::Kind::kLiteral &&
                        pattern.literal.kind == LiteralValue::Kind::kNull)) {
      return BooleanLiteral(std::nullopt, node.position);
    }
    if (!pattern_column) {
      // Refuse a bad pattern here, where every other error of a filter is reported, not on the
      // first batch.
      const auto checked = CheckLikePattern(pattern.literal.string, escape);
      if (!checked.ok()) {
        return Error(pattern.position, "the ", keyword, " pattern ", checked.message());
      }
    }
    NodePtr result = std::make_shared<Like>(
        std::move(column), pattern_column ? std::string() : pattern.literal.string,
        std::move(pattern_column), std::move(escape), case_insensitive, node.position);
    return node.negated ? MakeNot(std::move(result), node.position) : result;
  }

  arrow::Result<NodePtr> BindCall(const SyntaxNode& node) {
    const bool any = node.name == "array_has_any";
    if (!any && node.name != "array_has_all") {
      const auto suggestions = ClosestNames(node.name, {"array_has_any", "array_has_all"});
      return Error(node.position, "unknown function '", node.name, "'; ",
                   suggestions.empty() ? "the functions are array_has_any and array_has_all"
                                       : DidYouMean(suggestions));
    }
    const std::string function = node.name;
    if (node.children.size() != 2 || node.children[1]->kind != SyntaxNode::Kind::kArray ||
        node.children[0]->kind == SyntaxNode::Kind::kArray) {
      return Error(node.position, function,
                   " takes a list column and an array of literals: ", function,
                   "(tags, ['a', 'b'])");
    }
    ARROW_ASSIGN_OR_RAISE(auto column, ExpectColumn(*node.children[0], function));
    const auto& type = column->type();
    if (FamilyOf(*type) != TypeFamily::kList) {
      if (type->id() == arrow::Type::LIST || type->id() == arrow::Type::LARGE_LIST) {
        return FilterError(ErrorKind::kUnsupported, text_, column->position(), function,
                           " supports lists of integers or strings; ", Describe(*column),
                           " is not one");
      }
      return Mismatch(column->position(), function, " needs a list column, but ", Describe(*column),
                      " is not a list");
    }
    const auto& element_type = ListElementType(*type);
    std::vector<std::shared_ptr<arrow::Scalar>> values;
    std::unordered_set<std::shared_ptr<arrow::Scalar>, ScalarHash, ScalarEqual> seen;
    bool unmatchable = false;
    for (const auto& item : node.children[1]->children) {
      if (item->kind != SyntaxNode::Kind::kLiteral) {
        return Error(item->position, "the array of ", function,
                     " holds literals only, found column '", item->name, "'");
      }
      if (item->literal.kind == LiteralValue::Kind::kNull) {
        return Error(item->position, "NULL cannot be an element of the array of ", function,
                     "; null elements of a list never match");
      }
      ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(*column, element_type, *item,
                                                   "the elements (" + element_type->ToString() +
                                                       ") of " + Describe(*column)));
      if (!resolved.exact) {
        unmatchable = true;  // e.g. 300 for a list of uint8: no element equals it
        continue;
      }
      if (seen.insert(resolved.exact).second) values.push_back(resolved.exact);
    }
    if (!any && unmatchable) return DecidedUnlessNull(column, false, node.position);
    if (values.empty()) return DecidedUnlessNull(column, !any, node.position);
    return std::make_shared<ArrayHas>(std::move(column), any ? ArrayMatch::kAny : ArrayMatch::kAll,
                                      std::move(values), node.position);
  }

  std::shared_ptr<arrow::Schema> schema_;
  std::string_view text_;
};

}  // namespace

arrow::Result<NodePtr> Bind(const SyntaxNode& tree, const std::shared_ptr<arrow::Schema>& schema,
                            std::string_view text) {
  return Binder(schema, text).Predicate(tree);
}

}  // namespace tessera::expr
