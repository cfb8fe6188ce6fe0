// The typed AST of a filter: what the binder builds from the parsed text and a schema, and what
// the evaluator and the index planners consume.
//
// Invariants the binder establishes (planners may rely on them):
// - Predicate nodes (everything but Column and non-boolean Literal) have type boolean. A Column
//   used as a predicate has type boolean too.
// - In a Compare between a column and a literal, the column is on the left (`5 < x` is bound as
//   `x > 5`) and the literal is a non-null arrow::Scalar of exactly the column's type. Literals
//   of Between, InList and ArrayHas (element type) are likewise of the column's type.
// - Literals that no value of the column's type can equal are resolved at bind time, exactly:
//   `u8 < 300` becomes `u8 <= 255`; `u8 = 300` becomes `(u8 IS NULL AND NULL)`, which is false
//   for every non-null row and null (unknown) for null rows, as SQL requires; values of an IN
//   list that cannot occur are dropped.
// - And / Or are flattened (no And directly under an And) and have at least two children.
// - A predicate over literals only (`1 = 1`, `x = NULL`) is folded into a boolean Literal.
// - Every node keeps the 1-based character position of the text it came from.
#pragma once

#include <arrow/scalar.h>
#include <arrow/type.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::expr {

enum class NodeKind {
  kLiteral,
  kColumn,
  kCompare,
  kInList,
  kBetween,
  kIsNull,
  kLike,
  kArrayHas,
  kAnd,
  kOr,
  kNot,
  kCall,
  kCast,
  kCase,
};

enum class CompareOp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// "=", "!=", "<", "<=", ">", ">=".
std::string_view CompareOpSymbol(CompareOp op);
// The operator with its operands swapped: `a < b` is `b > a`.
CompareOp FlipCompareOp(CompareOp op);
// Whether two values in `order` (-1 less, 0 equal, 1 greater, 2 unordered as NaN is) satisfy
// `op`; unordered values satisfy only !=.
bool OrderSatisfies(CompareOp op, int order);

// array_has_any (some literal occurs in the row's list) or array_has_all (every literal does).
enum class ArrayMatch { kAny, kAll };

class Node {
 public:
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeKind kind() const { return kind_; }
  const std::shared_ptr<arrow::DataType>& type() const { return type_; }
  // 1-based character offset, in the filter text, of the construct this node was bound from.
  int position() const { return position_; }
  // Normalized rendering; it parses back (against the same schema) to the same tree.
  virtual std::string ToString() const = 0;

  // Checked downcast: T::kKind must equal kind(); anything else is a caller bug.
  template <typename T>
  const T& As() const {
    if (kind_ != T::kKind) std::abort();
    return static_cast<const T&>(*this);
  }

 protected:
  Node(NodeKind kind, std::shared_ptr<arrow::DataType> type, int position)
      : kind_(kind), type_(std::move(type)), position_(position) {}

 private:
  NodeKind kind_;
  std::shared_ptr<arrow::DataType> type_;
  int position_;
};

using NodePtr = std::shared_ptr<const Node>;

// A constant. As a predicate it is a boolean scalar (TRUE, FALSE, or a null boolean for
// unknown); as a comparison operand it is a scalar of the compared column's type.
class Literal final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kLiteral;
  Literal(std::shared_ptr<arrow::Scalar> value, int position);
  const std::shared_ptr<arrow::Scalar>& value() const { return value_; }
  bool is_null() const { return !value_->is_valid; }
  std::string ToString() const override;

 private:
  std::shared_ptr<arrow::Scalar> value_;
};

// A top-level field, by name. field_index() is its index in the schema the filter was bound
// against; batches given to Evaluate are matched by name, not by index.
class Column final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kColumn;
  Column(std::string name, int field_index, std::shared_ptr<arrow::DataType> type, int position);
  const std::string& name() const { return name_; }
  int field_index() const { return field_index_; }
  std::string ToString() const override;

 private:
  std::string name_;
  int field_index_;
};

// left op right over two value expressions of comparable types (types.h: ComparisonType). At
// least one is not a Literal, and a Literal operand is always on the right, of exactly the
// other side's type. Index planners recognise the Column-versus-Literal form only.
class Compare final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kCompare;
  Compare(CompareOp op, NodePtr left, NodePtr right, int position);
  CompareOp op() const { return op_; }
  const Node& left() const { return *left_; }
  const Node& right() const { return *right_; }
  const NodePtr& left_ptr() const { return left_; }
  const NodePtr& right_ptr() const { return right_; }
  std::string ToString() const override;

 private:
  CompareOp op_;
  NodePtr left_;
  NodePtr right_;
};

// column IN (values...). values are distinct non-null scalars of the column's type;
// has_null says the list held NULL, which makes an unmatched non-null row unknown (SQL).
// NOT IN is Not(InList).
class InList final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kInList;
  InList(std::shared_ptr<const Column> column, std::vector<std::shared_ptr<arrow::Scalar>> values,
         bool has_null, int position);
  const Column& column() const { return *column_; }
  const std::vector<std::shared_ptr<arrow::Scalar>>& values() const { return values_; }
  bool has_null() const { return has_null_; }
  std::string ToString() const override;

 private:
  std::shared_ptr<const Column> column_;
  std::vector<std::shared_ptr<arrow::Scalar>> values_;
  bool has_null_;
};

// lower <= column <= upper, both bounds inclusive and of the column's type. NOT BETWEEN is
// Not(Between).
class Between final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kBetween;
  Between(std::shared_ptr<const Column> column, std::shared_ptr<arrow::Scalar> lower,
          std::shared_ptr<arrow::Scalar> upper, int position);
  const Column& column() const { return *column_; }
  const std::shared_ptr<arrow::Scalar>& lower() const { return lower_; }
  const std::shared_ptr<arrow::Scalar>& upper() const { return upper_; }
  std::string ToString() const override;

 private:
  std::shared_ptr<const Column> column_;
  std::shared_ptr<arrow::Scalar> lower_;
  std::shared_ptr<arrow::Scalar> upper_;
};

// column IS NULL; never unknown. IS NOT NULL is Not(IsNull).
class IsNull final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kIsNull;
  IsNull(std::shared_ptr<const Column> column, int position);
  const Column& column() const { return *column_; }
  std::string ToString() const override;

 private:
  std::shared_ptr<const Column> column_;
};

// column [I]LIKE pattern [ESCAPE 'c'] on a string column: % matches any run of characters, _
// exactly one, the escape character (a backslash unless ESCAPE names another; none when
// escape() is empty) makes the next character literal; grammar and matching in like_pattern.h.
// The pattern is a string literal (pattern()), valid for the escape, or a string column
// (pattern_column() non-null; a null pattern gives null). NOT [I]LIKE is Not(Like).
class Like final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kLike;
  Like(std::shared_ptr<const Column> column, std::string pattern, int position);
  Like(std::shared_ptr<const Column> column, std::string pattern,
       std::shared_ptr<const Column> pattern_column, std::string escape, bool case_insensitive,
       int position);
  const Column& column() const { return *column_; }
  // The literal pattern; empty when pattern_column() is set.
  const std::string& pattern() const { return pattern_; }
  // The column holding each row's pattern, or null for a literal pattern.
  const Column* pattern_column() const { return pattern_column_.get(); }
  // One code point, or empty for no escape character.
  const std::string& escape() const { return escape_; }
  bool case_insensitive() const { return case_insensitive_; }
  std::string ToString() const override;

 private:
  std::shared_ptr<const Column> column_;
  std::string pattern_;
  std::shared_ptr<const Column> pattern_column_;
  std::string escape_;
  bool case_insensitive_ = false;
};

// array_has_any / array_has_all over a list column. values are distinct non-null scalars of
// the list's element type. A null list gives null; null elements never match.
class ArrayHas final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kArrayHas;
  ArrayHas(std::shared_ptr<const Column> column, ArrayMatch match,
           std::vector<std::shared_ptr<arrow::Scalar>> values, int position);
  const Column& column() const { return *column_; }
  ArrayMatch match() const { return match_; }
  const std::vector<std::shared_ptr<arrow::Scalar>>& values() const { return values_; }
  std::string ToString() const override;

 private:
  std::shared_ptr<const Column> column_;
  ArrayMatch match_;
  std::vector<std::shared_ptr<arrow::Scalar>> values_;
};

// Kleene AND / OR over two or more predicates.
class And final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kAnd;
  And(std::vector<NodePtr> children, int position);
  const std::vector<NodePtr>& children() const { return children_; }
  std::string ToString() const override;

 private:
  std::vector<NodePtr> children_;
};

class Or final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kOr;
  Or(std::vector<NodePtr> children, int position);
  const std::vector<NodePtr>& children() const { return children_; }
  std::string ToString() const override;

 private:
  std::vector<NodePtr> children_;
};

// Kleene NOT: unknown stays unknown.
class Not final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kNot;
  Not(NodePtr child, int position);
  const Node& child() const { return *child_; }
  const NodePtr& child_ptr() const { return child_; }
  std::string ToString() const override;

 private:
  NodePtr child_;
};

struct FunctionSpec;

// A function or operator (functions.h) applied to value expressions. The binder has cast the
// arguments to the types the function's signature asks for, so they evaluate as they are.
class Call final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kCall;
  Call(const FunctionSpec& function, std::vector<NodePtr> arguments,
       std::shared_ptr<arrow::DataType> type, int position);
  const FunctionSpec& function() const { return function_; }
  const std::vector<NodePtr>& arguments() const { return arguments_; }
  std::string ToString() const override;

 private:
  const FunctionSpec& function_;
  std::vector<NodePtr> arguments_;
};

// CAST(operand AS type()) — or TRY_CAST, which gives null where a value does not convert.
// The binder also inserts Casts where an argument must be widened (int8 + int16 adds int16s).
class Cast final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kCast;
  Cast(NodePtr operand, std::shared_ptr<arrow::DataType> type, bool try_cast, int position);
  const Node& operand() const { return *operand_; }
  const NodePtr& operand_ptr() const { return operand_; }
  bool try_cast() const { return try_cast_; }
  std::string ToString() const override;

 private:
  NodePtr operand_;
  bool try_cast_;
};

// CASE WHEN condition THEN value ... ELSE otherwise END: the value of the first branch whose
// condition is true (unknown counts as not true), else `otherwise` (a null literal when no ELSE
// was written). Every value has the node's type.
class Case final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kCase;
  struct Branch {
    NodePtr when;
    NodePtr then;
  };
  Case(std::vector<Branch> branches, NodePtr otherwise, std::shared_ptr<arrow::DataType> type,
       int position);
  const std::vector<Branch>& branches() const { return branches_; }
  const Node& otherwise() const { return *otherwise_; }
  std::string ToString() const override;

 private:
  std::vector<Branch> branches_;
  NodePtr otherwise_;
};

// Whether evaluating `node` can fail on some data (an integer overflow, a CAST that does not
// convert, a modulo by zero): such parts of a WHERE clause are evaluated only on the rows the
// rest of it keeps (filter.h), so that an index never changes whether a filter fails.
bool CanFail(const Node& node);

// Renders a scalar as a filter literal: 42, 2.5, 'it''s', TRUE, NULL, DATE '2024-01-01',
// TIMESTAMP '2024-01-01 10:00:00.5'.
std::string RenderLiteral(const arrow::Scalar& value);
// Renders a column name, double-quoted when it is not a plain identifier or is a keyword.
std::string RenderColumnName(std::string_view name);

}  // namespace tessera::expr
