#include "tessera/expr/binder.h"

#include <optional>
#include <unordered_set>

#include <arrow/compute/cast.h>
#include <arrow/record_batch.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/evaluator.h"
#include "tessera/expr/function_families.h"
#include "tessera/expr/functions.h"
#include "tessera/expr/like_pattern.h"
#include "tessera/expr/literal.h"
#include "tessera/expr/temporal.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

using ColumnPtr = std::shared_ptr<const Column>;
using TypePtr = std::shared_ptr<arrow::DataType>;

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

// "column 'x' (int8)" or "expression (a + 1) (int16)".
std::string Describe(const Node& node) {
  if (node.kind() == NodeKind::kColumn) return Describe(node.As<Column>());
  return "expression " + node.ToString() + " (" + node.type()->ToString() + ")";
}

class Binder {
 public:
  Binder(const std::shared_ptr<arrow::Schema>& schema, const SourceText& text)
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
        if (node.name == "array_has_any" || node.name == "array_has_all") return BindCall(node);
        return BooleanValue(node);
      case SyntaxNode::Kind::kCast:
      case SyntaxNode::Kind::kCase:
        return BooleanValue(node);
      case SyntaxNode::Kind::kIsDistinct:
        return BindIsDistinct(node);
      case SyntaxNode::Kind::kIsTruth:
        return BindIsTruth(node);
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

  // Binds a value expression of any type. `hint`: the type a literal here takes when it can
  // hold it exactly (the other operand's type), so that `i8 + 1` adds int8s.
  arrow::Result<NodePtr> Value(const SyntaxNode& node, const TypePtr& hint = nullptr) {
    switch (node.kind) {
      case SyntaxNode::Kind::kLiteral:
        return BindLiteral(node, hint);
      case SyntaxNode::Kind::kColumn:
        return BindColumn(node);
      case SyntaxNode::Kind::kCall:
        if (node.name == "array_has_any" || node.name == "array_has_all") return Predicate(node);
        return BindFunction(node);
      case SyntaxNode::Kind::kCast:
        return BindCast(node);
      case SyntaxNode::Kind::kCase:
        return BindCase(node);
      case SyntaxNode::Kind::kArray:
        return Error(node.position,
                     "an array literal [...] is only valid as an argument of "
                     "array_has_any / array_has_all");
      default:
        return Predicate(node);
    }
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
  static NodePtr DecidedUnlessNull(const NodePtr& operand, bool value, int position) {
    NodePtr is_null = IsNullOf(operand, position);
    if (value) {
      return std::make_shared<Or>(std::vector<NodePtr>{std::make_shared<Not>(is_null, position),
                                                       BooleanLiteral(std::nullopt, position)},
                                  position);
    }
    return std::make_shared<And>(
        std::vector<NodePtr>{is_null, BooleanLiteral(std::nullopt, position)}, position);
  }

  // `operand IS NULL`: the IsNull node index planners know for a column, a call otherwise.
  static NodePtr IsNullOf(const NodePtr& operand, int position) {
    if (operand->kind() == NodeKind::kColumn) {
      return std::make_shared<IsNull>(std::static_pointer_cast<const Column>(operand), position);
    }
    return std::make_shared<Call>(*FindFunction("is null"), std::vector<NodePtr>{operand},
                                  arrow::boolean(), position);
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
  arrow::Status CheckComparable(const Node& column, std::optional<CompareOp> op,
                                std::string_view operation, int position) const {
    switch (FamilyOf(*column.type())) {
      case TypeFamily::kList:
        return Mismatch(position, Describe(column), " cannot be used with ", operation,
                        "; query lists with array_has_any(", column.ToString(),
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
  arrow::Result<ResolvedLiteral> Resolve(const Node& column,
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
    ARROW_ASSIGN_OR_RAISE(auto bound, Value(left));
    ARROW_ASSIGN_OR_RAISE(auto compare, CompareWith(op, bound, right, position));
    // Both sides folded into constants (1 + 2 = 3, or 1 * 0 - 1 = 2.5, which resolves to
    // "(-1 IS NULL) AND NULL"): the comparison folds too.
    if (compare->kind() != NodeKind::kLiteral && IsConstant(*compare)) {
      return Fold(std::move(compare));
    }
    return compare;
  }

  // Whether `node` reads no column.
  static bool IsConstant(const Node& node) {
    auto all = [](const std::vector<NodePtr>& nodes) {
      return std::all_of(nodes.begin(), nodes.end(),
                         [](const NodePtr& child) { return IsConstant(*child); });
    };
    switch (node.kind()) {
      case NodeKind::kLiteral:
        return true;
      case NodeKind::kCompare:
        return IsConstant(node.As<Compare>().left()) && IsConstant(node.As<Compare>().right());
      case NodeKind::kAnd:
        return all(node.As<And>().children());
      case NodeKind::kOr:
        return all(node.As<Or>().children());
      case NodeKind::kNot:
        return IsConstant(node.As<Not>().child());
      case NodeKind::kCall:
        return all(node.As<Call>().arguments());
      case NodeKind::kCast:
        return IsConstant(node.As<Cast>().operand());
      default:
        return false;  // CASE folds its constants itself; the other kinds read a column
    }
  }

  // `left op right` with `left` bound; a literal `right` is resolved exactly against its type.
  arrow::Result<NodePtr> CompareWith(CompareOp op, const NodePtr& left, const SyntaxNode& right,
                                     int position) {
    const std::string operation = "'" + std::string(CompareOpSymbol(op)) + "'";
    RETURN_NOT_OK(CheckComparable(*left, op, operation, position));
    if (right.kind != SyntaxNode::Kind::kLiteral) {
      ARROW_ASSIGN_OR_RAISE(auto other, Value(right, left->type()));
      if (other->kind() == NodeKind::kLiteral) {
        return CompareWithScalar(op, left, other->As<Literal>(), position);
      }
      // A left side that folded into a constant goes right, as a written literal would.
      if (left->kind() == NodeKind::kLiteral) {
        return CompareWithScalar(FlipCompareOp(op), other, left->As<Literal>(), position);
      }
      RETURN_NOT_OK(CheckComparable(*other, op, operation, position));
      auto common = ComparisonType(left->type(), other->type());
      if (!common.ok()) {
        return Mismatch(position, "cannot compare ", Describe(*left), " with ", Describe(*other),
                        common.status().message() == "timestamps with and without time zone"
                            ? " (one timestamp has a time zone, the other has none)"
                            : "");
      }
      return std::make_shared<Compare>(op, left, std::move(other), position);
    }
    if (right.literal.kind == LiteralValue::Kind::kNull) {
      // SQL: a comparison with NULL is unknown on every row, even a null one; `x IS NULL` is
      // the test for nulls.
      return BooleanLiteral(std::nullopt, position);
    }
    ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(*left, left->type(), right, Describe(*left)));
    if (resolved.exact) {
      return std::make_shared<Compare>(
          op, left, std::make_shared<Literal>(resolved.exact, right.position), position);
    }
    auto bound = [&](CompareOp bound_op, const std::shared_ptr<arrow::Scalar>& value) -> NodePtr {
      return std::make_shared<Compare>(bound_op, left,
                                       std::make_shared<Literal>(value, right.position), position);
    };
    switch (op) {
      case CompareOp::kEqual:
        return DecidedUnlessNull(left, false, position);
      case CompareOp::kNotEqual:
        return DecidedUnlessNull(left, true, position);
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

  // `left op value` where the right side folded into a constant (CAST('1' AS int), 1 + 2): the
  // constant is compared exactly, like a written literal, when a literal can spell it.
  arrow::Result<NodePtr> CompareWithScalar(CompareOp op, const NodePtr& left, const Literal& right,
                                           int position) {
    if (right.is_null()) return BooleanLiteral(std::nullopt, position);
    if (auto spelled = SpelledLiteral(*right.value())) {
      SyntaxNode literal;
      literal.kind = SyntaxNode::Kind::kLiteral;
      literal.position = right.position();
      literal.literal = *spelled;
      return CompareWith(op, left, literal, position);
    }
    auto common = ComparisonType(left->type(), right.type());
    if (!common.ok()) {
      return Mismatch(position, "cannot compare ", Describe(*left), " with ", Describe(right));
    }
    // NaN and infinities: compared in the common type, the column cast to it (so no index
    // planner mistakes the constant for one of the column's type).
    NodePtr cast_left = left;
    if (!left->type()->Equals(**common)) {
      cast_left = std::make_shared<Cast>(left, *common, /*try_cast=*/false, left->position());
    }
    ARROW_ASSIGN_OR_RAISE(auto value, CastValues(right.value(), *common, false, 1));
    return std::make_shared<Compare>(op, std::move(cast_left),
                                     std::make_shared<Literal>(value.scalar(), right.position()),
                                     position);
  }

  // The literal that denotes `value`, when there is one (finite numbers, strings, booleans,
  // dates, timestamps without time zone).
  static std::optional<LiteralValue> SpelledLiteral(const arrow::Scalar& value) {
    LiteralValue literal;
    const auto& type = *value.type;
    switch (FamilyOf(type)) {
      case TypeFamily::kInteger: {
        auto as_int = value.CastTo(arrow::int64());
        if (IsSignedInteger(type) || (as_int.ok() && type.id() != arrow::Type::UINT64)) {
          literal.kind = LiteralValue::Kind::kInteger;
          literal.integer = static_cast<const arrow::Int64Scalar&>(**as_int).value;
          return literal;
        }
        literal.kind = LiteralValue::Kind::kInteger;
        literal.integer = static_cast<const arrow::UInt64Scalar&>(value).value;
        return literal;
      }
      case TypeFamily::kFloat: {
        auto as_double = value.CastTo(arrow::float64());
        if (!as_double.ok()) return std::nullopt;
        const double real = static_cast<const arrow::DoubleScalar&>(**as_double).value;
        if (!std::isfinite(real)) return std::nullopt;
        literal.kind = LiteralValue::Kind::kFloat;
        literal.real = real;
        return literal;
      }
      case TypeFamily::kString:
        literal.kind = LiteralValue::Kind::kString;
        literal.string = std::string(static_cast<const arrow::BaseBinaryScalar&>(value).view());
        return literal;
      case TypeFamily::kBoolean:
        literal.kind = LiteralValue::Kind::kBoolean;
        literal.boolean = static_cast<const arrow::BooleanScalar&>(value).value;
        return literal;
      default:
        break;
    }
    if (type.id() == arrow::Type::DATE32) {
      literal.kind = LiteralValue::Kind::kDate;
      literal.integer = static_cast<const arrow::Date32Scalar&>(value).value;
      return literal;
    }
    if (type.id() == arrow::Type::TIMESTAMP &&
        static_cast<const arrow::TimestampType&>(type).timezone().empty()) {
      literal.kind = LiteralValue::Kind::kTimestamp;
      literal.integer =
          static_cast<Nanoseconds>(static_cast<const arrow::TimestampScalar&>(value).value) *
          NanosecondsPerUnit(static_cast<const arrow::TimestampType&>(type).unit());
      return literal;
    }
    return std::nullopt;
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
    bool all_literals = true;
    for (size_t i = 1; i < node.children.size(); ++i) {
      all_literals = all_literals && node.children[i]->kind == SyntaxNode::Kind::kLiteral;
    }
    NodePtr result;
    const bool simple = all_literals && (operand.kind == SyntaxNode::Kind::kLiteral ||
                                         operand.kind == SyntaxNode::Kind::kColumn);
    if (!simple) {
      // x IN (a, b + 1, 3) is x = a OR x = b + 1 OR x = 3, with SQL's unknowns.
      std::vector<NodePtr> equalities;
      for (size_t i = 1; i < node.children.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(
            auto equal, BindCompare(CompareOp::kEqual, operand, *node.children[i], node.position));
        equalities.push_back(std::move(equal));
      }
      result = MakeOr(std::move(equalities), node.position);
    } else if (operand.kind == SyntaxNode::Kind::kLiteral) {
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
    ARROW_ASSIGN_OR_RAISE(auto value, Value(operand));
    if (value->kind() == NodeKind::kLiteral) {
      return BooleanLiteral(value->As<Literal>().is_null() != node.negated, node.position);
    }
    NodePtr result = IsNullOf(value, node.position);
    return node.negated ? MakeNot(std::move(result), node.position) : result;
  }

  arrow::Result<NodePtr> BindLike(const SyntaxNode& node) {
    const bool case_insensitive = node.name == "ilike";
    const std::string keyword = case_insensitive ? "ILIKE" : "LIKE";
    const SyntaxNode& pattern = *node.children[1];
    if (node.children[0]->kind != SyntaxNode::Kind::kColumn ||
        (pattern.kind != SyntaxNode::Kind::kLiteral && pattern.kind != SyntaxNode::Kind::kColumn)) {
      return BindLikeOfValues(node, keyword, case_insensitive);
    }
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

  // LIKE over values other than a column and a literal or column pattern (lower(s) LIKE 'a%',
  // s LIKE prefix || '%'): a call no index answers, with the same matcher.
  arrow::Result<NodePtr> BindLikeOfValues(const SyntaxNode& node, const std::string& keyword,
                                          bool case_insensitive) {
    std::vector<const SyntaxNode*> arguments = {node.children[0].get(), node.children[1].get()};
    ARROW_ASSIGN_OR_RAISE(auto bound, BindArguments(arguments));
    NodePtr escape = std::make_shared<Literal>(
        std::make_shared<arrow::StringScalar>(std::string(kDefaultLikeEscape)), node.position);
    if (node.children.size() > 2) {
      const SyntaxNode& clause = *node.children[2];
      if (clause.kind != SyntaxNode::Kind::kLiteral ||
          (clause.literal.kind != LiteralValue::Kind::kString &&
           clause.literal.kind != LiteralValue::Kind::kNull)) {
        return Error(clause.position, "ESCAPE takes a string literal of one character");
      }
      ARROW_ASSIGN_OR_RAISE(escape, BindLiteral(clause, arrow::utf8()));
    }
    for (const auto& value : bound) {
      if (FamilyOf(*value->type()) != TypeFamily::kString &&
          value->type()->id() != arrow::Type::NA) {
        return Mismatch(value->position(), keyword, " applies to strings, but ", Describe(*value),
                        " is not a string");
      }
    }
    bound.push_back(std::move(escape));
    const FunctionSpec& spec = *FindFunction(case_insensitive ? "ilike operator" : "like operator");
    ARROW_ASSIGN_OR_RAISE(auto signature,
                          spec.resolve({bound[0]->type(), bound[1]->type(), bound[2]->type()}));
    ARROW_ASSIGN_OR_RAISE(
        auto call, MakeCall(spec, std::move(bound), signature, node.position, keyword, keyword));
    return node.negated ? MakeNot(std::move(call), node.position) : call;
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

  // --- value expressions ---------------------------------------------------------------------

  // A value expression used as a predicate must be boolean.
  arrow::Result<NodePtr> BooleanValue(const SyntaxNode& node) {
    ARROW_ASSIGN_OR_RAISE(auto value, Value(node, arrow::boolean()));
    if (value->type()->id() == arrow::Type::NA) return BooleanLiteral(std::nullopt, node.position);
    if (value->type()->id() != arrow::Type::BOOL) {
      return Error(node.position, "expected a predicate, but ", Describe(*value),
                   " is not boolean; compare it with a value, e.g. ", value->ToString(), " = ...");
    }
    return value;
  }

  // A literal as a value: of `hint`'s type when that type holds it exactly, else of its own
  // kind's type (int64, uint64 beyond int64, float64, varchar, boolean, date, timestamp).
  arrow::Result<NodePtr> BindLiteral(const SyntaxNode& node, const TypePtr& hint) {
    const LiteralValue& literal = node.literal;
    if (literal.kind == LiteralValue::Kind::kNull) {
      // A NULL takes the other operand's type, unless that is a list or vector (a NULL beside
      // a list, as in array_contains(list, NULL), is a missing element).
      const bool scalar_hint =
          hint && FamilyOf(*hint) != TypeFamily::kList && FamilyOf(*hint) != TypeFamily::kVector;
      auto type = scalar_hint ? hint : arrow::null();
      return std::make_shared<Literal>(arrow::MakeNullScalar(type), node.position);
    }
    if (hint && FamilyOf(*hint) != TypeFamily::kList && FamilyOf(*hint) != TypeFamily::kVector &&
        FamilyOf(*hint) != TypeFamily::kOther) {
      auto resolved = ResolveLiteral(literal, hint);
      const bool same_kind =
          !(literal.kind == LiteralValue::Kind::kFloat && FamilyOf(*hint) == TypeFamily::kInteger);
      if (resolved.ok() && resolved->exact && same_kind) {
        return std::make_shared<Literal>(resolved->exact, node.position);
      }
    }
    std::shared_ptr<arrow::Scalar> scalar;
    switch (literal.kind) {
      case LiteralValue::Kind::kBoolean:
        scalar = std::make_shared<arrow::BooleanScalar>(literal.boolean);
        break;
      case LiteralValue::Kind::kInteger:
        if (literal.integer >= std::numeric_limits<int64_t>::min() &&
            literal.integer <= std::numeric_limits<int64_t>::max()) {
          scalar = std::make_shared<arrow::Int64Scalar>(static_cast<int64_t>(literal.integer));
        } else if (literal.integer > 0) {
          scalar = std::make_shared<arrow::UInt64Scalar>(static_cast<uint64_t>(literal.integer));
        } else {
          return Error(node.position, DescribeLiteral(literal),
                       " is below the smallest int64; write it as a float");
        }
        break;
      case LiteralValue::Kind::kFloat:
        scalar = std::make_shared<arrow::DoubleScalar>(literal.real);
        break;
      case LiteralValue::Kind::kString:
        scalar = std::make_shared<arrow::StringScalar>(literal.string);
        break;
      case LiteralValue::Kind::kDate:
        scalar = std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(literal.integer));
        break;
      case LiteralValue::Kind::kTimestamp: {
        const bool whole_micros = literal.integer % 1000 == 0;
        const __int128 value = whole_micros ? literal.integer / 1000 : literal.integer;
        if (!whole_micros && (value < std::numeric_limits<int64_t>::min() ||
                              value > std::numeric_limits<int64_t>::max())) {
          return Error(node.position, DescribeLiteral(literal),
                       " has nanoseconds but lies outside the years 1677..2262 that "
                       "timestamp_ns holds");
        }
        scalar = std::make_shared<arrow::TimestampScalar>(
            static_cast<int64_t>(value),
            arrow::timestamp(whole_micros ? arrow::TimeUnit::MICRO : arrow::TimeUnit::NANO));
        break;
      }
      case LiteralValue::Kind::kNull:
        break;
    }
    return std::make_shared<Literal>(std::move(scalar), node.position);
  }

  // Binds the arguments of a call or CASE: non-literals first, so that literals can take their
  // type (coalesce(i8, 0) keeps int8).
  // Arguments in `own_types` (a bit per argument) keep their own types: the constant digits of
  // round(x, 1) are an integer whatever x is.
  arrow::Result<std::vector<NodePtr>> BindArguments(const std::vector<const SyntaxNode*>& arguments,
                                                    uint32_t own_types = 0) {
    std::vector<NodePtr> bound(arguments.size());
    TypePtr hint;
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (arguments[i]->kind == SyntaxNode::Kind::kLiteral) continue;
      ARROW_ASSIGN_OR_RAISE(bound[i], Value(*arguments[i]));
      // A CAST fixes the type even when it folds (127::tinyint + 1 adds int8s).
      const bool typed =
          bound[i]->kind() != NodeKind::kLiteral || arguments[i]->kind == SyntaxNode::Kind::kCast;
      if (!hint && typed && bound[i]->type()->id() != arrow::Type::NA) {
        hint = bound[i]->type();
      }
    }
    for (size_t i = 0; i < arguments.size(); ++i) {
      if ((own_types >> i & 1u) != 0) {
        if (!bound[i]) {
          ARROW_ASSIGN_OR_RAISE(bound[i], Value(*arguments[i]));
        }
        continue;
      }
      if (!bound[i]) {
        ARROW_ASSIGN_OR_RAISE(bound[i], Value(*arguments[i], hint));
      } else if (hint && bound[i]->kind() == NodeKind::kLiteral &&
                 arguments[i]->kind != SyntaxNode::Kind::kCast) {
        bound[i] = Retyped(bound[i], hint);
      }
    }
    return bound;
  }

  // A folded constant (1 * 2) takes `hint`'s type like a written literal would, when it is of
  // the same family and the type holds it exactly.
  static NodePtr Retyped(const NodePtr& constant, const TypePtr& hint) {
    const auto& value = constant->As<Literal>().value();
    if (FamilyOf(*value->type) != FamilyOf(*hint) || value->type->Equals(*hint)) return constant;
    const auto spelled = SpelledLiteral(*value);
    if (!spelled) return constant;
    auto resolved = ResolveLiteral(*spelled, hint);
    if (!resolved.ok() || !resolved->exact) return constant;
    return std::make_shared<Literal>(resolved->exact, constant->position());
  }

  // `value` converted to `type`: a folded literal when it is constant, else an implicit Cast.
  arrow::Result<NodePtr> Convert(NodePtr value, const TypePtr& type, int position,
                                 std::string_view context) {
    if (value->type()->Equals(*type)) return value;
    if (!CastIsImplicit(*value->type(), *type)) {
      return Mismatch(position, context, ": ", Describe(*value), " is not a ", type->ToString());
    }
    if (value->kind() == NodeKind::kLiteral) {
      auto cast = CastValues(value->As<Literal>().value(), type, /*try_cast=*/false, 1);
      if (!cast.ok()) return Error(value->position(), cast.status().message());
      return std::make_shared<Literal>(cast->scalar(), value->position());
    }
    const int at = value->position();
    return std::make_shared<Cast>(std::move(value), type, /*try_cast=*/false, at);
  }

  // Evaluates a node that reads no column, so that constant expressions (1 + 2,
  // CAST('5' AS int)) fail or fold at bind time, the same for every plan.
  arrow::Result<NodePtr> Fold(NodePtr node) {
    auto empty = arrow::RecordBatch::Make(arrow::schema({}), 1, arrow::ArrayVector{});
    auto value = EvaluateValue(*node, *empty);
    if (!value.ok()) return Error(node->position(), value.status().message());
    ARROW_ASSIGN_OR_RAISE(auto scalar, (*value)->GetScalar(0));
    return std::make_shared<Literal>(std::move(scalar), node->position());
  }

  static bool AllLiterals(const std::vector<NodePtr>& nodes) {
    return std::all_of(nodes.begin(), nodes.end(),
                       [](const NodePtr& node) { return node->kind() == NodeKind::kLiteral; });
  }

  arrow::Result<NodePtr> BindFunction(const SyntaxNode& node) {
    const FunctionSpec* spec = FindFunction(node.name);
    if (spec == nullptr) {
      const auto suggestions = ClosestNames(node.name, FunctionNames());
      return Error(
          node.position, "unknown function '", node.name, "'; ",
          suggestions.empty() ? "docs/filters.md lists the functions" : DidYouMean(suggestions));
    }
    const int count = static_cast<int>(node.children.size());
    if (count < spec->min_arguments || (spec->max_arguments >= 0 && count > spec->max_arguments)) {
      return Error(
          node.position, spec->name, " takes ",
          spec->min_arguments == spec->max_arguments
              ? std::to_string(spec->min_arguments)
              : std::to_string(spec->min_arguments) +
                    (spec->max_arguments < 0 ? " or more"
                                             : " to " + std::to_string(spec->max_arguments)),
          " argument", spec->max_arguments == 1 ? "" : "s", ", not ", count, ": ", spec->usage);
    }
    std::vector<const SyntaxNode*> arguments;
    for (int i = 0; i < count; ++i) {
      const SyntaxNode& argument = *node.children[static_cast<size_t>(i)];
      const bool constant =
          argument.kind == SyntaxNode::Kind::kLiteral ||
          (argument.kind == SyntaxNode::Kind::kCall && argument.name == "negate" &&
           argument.children[0]->kind == SyntaxNode::Kind::kLiteral);
      if ((spec->constant_arguments >> i & 1u) != 0 && !constant) {
        return Error(argument.position, "argument ", i + 1, " of ", spec->name,
                     " must be a constant: ", spec->usage);
      }
      arguments.push_back(&argument);
    }
    ARROW_ASSIGN_OR_RAISE(auto bound, BindArguments(arguments, spec->constant_arguments));
    TypeList types;
    for (const auto& argument : bound) types.push_back(argument->type());
    auto signature = spec->resolve(types);
    if (!signature.ok()) {
      std::string described;
      for (const auto& argument : bound) {
        described += (described.empty() ? "" : ", ") + Describe(*argument);
      }
      return Mismatch(node.position, signature.status().message(), " (", spec->usage, "; given ",
                      described.empty() ? "no arguments" : described, ")");
    }
    return MakeCall(*spec, std::move(bound), *signature, node.position, spec->usage, spec->name);
  }

  // The Call of `spec` over `bound` arguments: each converted to the signature's type (errors
  // name `usage`), the constant arguments checked (errors name `name`), folded when every
  // argument is constant.
  arrow::Result<NodePtr> MakeCall(const FunctionSpec& spec, std::vector<NodePtr> bound,
                                  const Signature& signature, int position, std::string_view usage,
                                  std::string_view name) {
    for (size_t i = 0; i < bound.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(bound[i], Convert(bound[i], signature.arguments[i], position, usage));
    }
    if (spec.check != nullptr) {
      std::vector<std::shared_ptr<arrow::Scalar>> constants;
      for (const auto& argument : bound) {
        constants.push_back(argument->kind() == NodeKind::kLiteral ? argument->As<Literal>().value()
                                                                   : nullptr);
      }
      const auto checked = spec.check(constants);
      if (!checked.ok()) return Error(position, name, ": ", checked.message());
    }
    const bool constant = AllLiterals(bound);
    NodePtr call = std::make_shared<Call>(spec, std::move(bound), signature.result, position);
    return constant ? Fold(std::move(call)) : call;
  }

  arrow::Result<NodePtr> BindCast(const SyntaxNode& node) {
    ARROW_ASSIGN_OR_RAISE(auto operand, Value(*node.children[0]));
    auto type = TypeNamed(node.name);
    if (!type.ok()) return Error(node.position, type.status().message());
    if (operand->type()->id() != arrow::Type::NA &&
        !arrow::compute::CanCast(*operand->type(), **type)) {
      return Mismatch(node.position, "cannot cast ", Describe(*operand), " to ", node.name);
    }
    NodePtr cast = std::make_shared<Cast>(operand, *type, node.negated, node.position);
    return operand->kind() == NodeKind::kLiteral ? Fold(std::move(cast)) : cast;
  }

  arrow::Result<NodePtr> BindCase(const SyntaxNode& node) {
    size_t at = 0;
    NodePtr operand;
    if (node.has_operand) {
      ARROW_ASSIGN_OR_RAISE(operand, Value(*node.children[at]));
      ++at;
    }
    const size_t end = node.children.size() - (node.has_else ? 1 : 0);
    std::vector<NodePtr> conditions;
    std::vector<const SyntaxNode*> values;
    for (; at < end; at += 2) {
      const SyntaxNode& when = *node.children[at];
      if (operand) {
        ARROW_ASSIGN_OR_RAISE(auto equal,
                              CompareWith(CompareOp::kEqual, operand, when, when.position));
        conditions.push_back(std::move(equal));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto condition, Predicate(when));
        conditions.push_back(std::move(condition));
      }
      values.push_back(node.children[at + 1].get());
    }
    if (node.has_else) values.push_back(node.children.back().get());
    ARROW_ASSIGN_OR_RAISE(auto bound, BindArguments(values));
    TypeList types;
    for (const auto& value : bound) types.push_back(value->type());
    auto common = CommonValueType(types);
    if (!common.ok()) {
      return Mismatch(node.position, "the values of CASE ", common.status().message());
    }
    for (auto& value : bound) {
      ARROW_ASSIGN_OR_RAISE(value, Convert(value, *common, node.position, "a CASE value"));
    }
    NodePtr otherwise;
    if (node.has_else) {
      otherwise = bound.back();
      bound.pop_back();
    } else {
      otherwise = std::make_shared<Literal>(arrow::MakeNullScalar(*common), node.position);
    }
    std::vector<Case::Branch> branches;
    for (size_t i = 0; i < conditions.size(); ++i) {
      branches.push_back({conditions[i], bound[i]});
    }
    return std::make_shared<Case>(std::move(branches), std::move(otherwise), *common,
                                  node.position);
  }

  // a IS [NOT] DISTINCT FROM b: = that treats two nulls as equal and is never unknown.
  arrow::Result<NodePtr> BindIsDistinct(const SyntaxNode& node) {
    ARROW_ASSIGN_OR_RAISE(auto bound,
                          BindArguments({node.children[0].get(), node.children[1].get()}));
    // Compared exactly like =, each side in its own type (compare_values.h); a NULL literal
    // takes the other side's type.
    const bool left_null = bound[0]->type()->id() == arrow::Type::NA;
    const bool right_null = bound[1]->type()->id() == arrow::Type::NA;
    if (left_null != right_null) {
      auto& null_side = bound[left_null ? 0 : 1];
      null_side = std::make_shared<Literal>(arrow::MakeNullScalar(bound[left_null ? 1 : 0]->type()),
                                            null_side->position());
    }
    if (!left_null || !right_null) {
      RETURN_NOT_OK(
          CheckComparable(*bound[0], CompareOp::kEqual, "IS DISTINCT FROM", node.position));
      if (!ComparisonType(bound[0]->type(), bound[1]->type()).ok()) {
        return Mismatch(node.position, "cannot compare ", Describe(*bound[0]), " with ",
                        Describe(*bound[1]));
      }
    }
    const bool constant = AllLiterals(bound);
    NodePtr call = std::make_shared<Call>(
        *FindFunction(node.negated ? "is not distinct from" : "is distinct from"), std::move(bound),
        arrow::boolean(), node.position);
    return constant ? Fold(std::move(call)) : call;
  }

  // x IS [NOT] TRUE / FALSE / UNKNOWN: never unknown.
  arrow::Result<NodePtr> BindIsTruth(const SyntaxNode& node) {
    ARROW_ASSIGN_OR_RAISE(auto operand, Predicate(*node.children[0]));
    const char* name = node.literal.kind == LiteralValue::Kind::kNull
                           ? (node.negated ? "is not unknown" : "is unknown")
                       : node.literal.boolean ? (node.negated ? "is not true" : "is true")
                                              : (node.negated ? "is not false" : "is false");
    const bool constant = operand->kind() == NodeKind::kLiteral;
    NodePtr call = std::make_shared<Call>(*FindFunction(name), std::vector<NodePtr>{operand},
                                          arrow::boolean(), node.position);
    return constant ? Fold(std::move(call)) : call;
  }

  std::shared_ptr<arrow::Schema> schema_;
  SourceText text_;
};

}  // namespace

arrow::Result<NodePtr> Bind(const SyntaxNode& tree, const std::shared_ptr<arrow::Schema>& schema,
                            const SourceText& text) {
  RETURN_NOT_OK(EnsureComputeInitialized());  // checks of patterns and casts of literals
  const StatementClock clock;                 // now() is one instant throughout the filter
  return Binder(schema, text).Predicate(tree);
}

arrow::Result<NodePtr> BindValue(const SyntaxNode& tree,
                                 const std::shared_ptr<arrow::Schema>& schema,
                                 const SourceText& text) {
  RETURN_NOT_OK(EnsureComputeInitialized());
  const StatementClock clock;
  return Binder(schema, text).Value(tree);
}

}  // namespace tessera::expr
