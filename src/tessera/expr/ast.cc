#include "tessera/expr/ast.h"

#include <arrow/util/float16.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "tessera/expr/functions.h"
#include "tessera/expr/temporal.h"

namespace tessera::expr {

std::string_view CompareOpSymbol(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return "=";
    case CompareOp::kNotEqual:
      return "!=";
    case CompareOp::kLess:
      return "<";
    case CompareOp::kLessEqual:
      return "<=";
    case CompareOp::kGreater:
      return ">";
    case CompareOp::kGreaterEqual:
      return ">=";
  }
  return "?";
}

bool OrderSatisfies(CompareOp op, int order) {
  if (order == 2) return op == CompareOp::kNotEqual;
  switch (op) {
    case CompareOp::kEqual:
      return order == 0;
    case CompareOp::kNotEqual:
      return order != 0;
    case CompareOp::kLess:
      return order < 0;
    case CompareOp::kLessEqual:
      return order <= 0;
    case CompareOp::kGreater:
      return order > 0;
    case CompareOp::kGreaterEqual:
      return order >= 0;
  }
  return false;
}

CompareOp FlipCompareOp(CompareOp op) {
  switch (op) {
    case CompareOp::kLess:
      return CompareOp::kGreater;
    case CompareOp::kLessEqual:
      return CompareOp::kGreaterEqual;
    case CompareOp::kGreater:
      return CompareOp::kLess;
    case CompareOp::kGreaterEqual:
      return CompareOp::kLessEqual;
    default:
      return op;  // = and != are symmetric
  }
}

namespace {

std::string QuoteString(std::string_view value) {
  std::string quoted = "'";
  for (char c : value) {
    switch (c) {
      case '\'':
        quoted += "''";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      case '\n':
        quoted += "\\n";
        break;
      case '\t':
        quoted += "\\t";
        break;
      case '\r':
        quoted += "\\r";
        break;
      case '\0':
        quoted += "\\0";
        break;
      default:
        quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

// The shortest text that reads back as exactly `value`.
template <typename T>
std::string ShortestFloat(T value) {
  // NaN and the infinities have no literal: they render as the functions that make them (the
  // constant folds back to the same value; a float32 one is cast back to its type).
  if (!std::isfinite(value)) {
    const std::string call = std::isnan(value) ? "nan()" : (value > 0 ? "inf()" : "-inf()");
    if constexpr (std::is_same_v<T, double>) {
      return call;
    } else {
      return "CAST(" + call + " AS float32)";
    }
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  // Large integral values print as plain digits (18446744073709551616), which would read back
  // as an integer literal, possibly out of the integer range: mark them as floats.
  if (text.find_first_not_of("-0123456789") == std::string::npos && text.size() > 15) {
    text += ".0";
  }
  // "-0" would read back as the integer 0, and -0.0 must render as it was written.
  if (text == "-0") text = "-0.0";
  return text;
}

std::string RenderList(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += RenderLiteral(*values[i]);
  }
  return text;
}

std::string JoinChildren(const std::vector<NodePtr>& children, std::string_view separator) {
  std::string text = "(";
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) text += separator;
    text += children[i]->ToString();
  }
  return text + ")";
}

bool IsReservedWord(std::string_view name) {
  for (std::string_view keyword :
       {"AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "LIKE", "TRUE", "FALSE", "CASE", "WHEN",
        "THEN", "ELSE", "END", "CAST", "TRY_CAST", "DISTINCT"}) {
    if (name.size() != keyword.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      same = std::toupper(static_cast<unsigned char>(name[i])) == keyword[i];
    }
    if (same) return true;
  }
  return false;
}

}  // namespace

std::string RenderLiteral(const arrow::Scalar& value) {
  if (!value.is_valid) return "NULL";
  switch (value.type->id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanScalar&>(value).value ? "TRUE" : "FALSE";
    case arrow::Type::HALF_FLOAT:
      return ShortestFloat(
          arrow::util::Float16::FromBits(static_cast<const arrow::HalfFloatScalar&>(value).value)
              .ToFloat());
    case arrow::Type::FLOAT:
      return ShortestFloat(static_cast<const arrow::FloatScalar&>(value).value);
    case arrow::Type::DOUBLE:
      return ShortestFloat(static_cast<const arrow::DoubleScalar&>(value).value);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return QuoteString(static_cast<const arrow::BaseBinaryScalar&>(value).view());
    case arrow::Type::DATE32:
      return "DATE '" + FormatDate(static_cast<const arrow::Date32Scalar&>(value).value) + "'";
    case arrow::Type::DATE64: {
      const int64_t milliseconds = static_cast<const arrow::Date64Scalar&>(value).value;
      return "TIMESTAMP '" + FormatTimestamp(static_cast<Nanoseconds>(milliseconds) * 1'000'000) +
             "'";
    }
    case arrow::Type::TIMESTAMP: {
      const auto& timestamp = static_cast<const arrow::TimestampScalar&>(value);
      const auto unit = static_cast<const arrow::TimestampType&>(*value.type).unit();
      return "TIMESTAMP '" +
             FormatTimestamp(static_cast<Nanoseconds>(timestamp.value) * NanosecondsPerUnit(unit)) +
             "'";
    }
    case arrow::Type::DURATION: {
      static constexpr const char* kUnits[] = {"SECOND", "MILLISECOND", "MICROSECOND",
                                               "NANOSECOND"};
      const auto unit = static_cast<const arrow::DurationType&>(*value.type).unit();
      return "INTERVAL '" + std::to_string(static_cast<const arrow::DurationScalar&>(value).value) +
             "' " + kUnits[static_cast<int>(unit)];
    }
    default:
      return value.ToString();  // integers
  }
}

std::string RenderColumnName(std::string_view name) {
  bool plain = !name.empty() && !IsReservedWord(name) &&
               (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (plain) return std::string(name);
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

Literal::Literal(std::shared_ptr<arrow::Scalar> value, int position)
    : Node(NodeKind::kLiteral, value->type, position), value_(std::move(value)) {}

std::string Literal::ToString() const { return RenderLiteral(*value_); }

Column::Column(std::string name, int field_index, std::shared_ptr<arrow::DataType> type,
               int position)
    : Node(NodeKind::kColumn, std::move(type), position),
      name_(std::move(name)),
      field_index_(field_index) {}

std::string Column::ToString() const { return RenderColumnName(name_); }

Compare::Compare(CompareOp op, NodePtr left, NodePtr right, int position)
    : Node(NodeKind::kCompare, arrow::boolean(), position),
      op_(op),
      left_(std::move(left)),
      right_(std::move(right)) {}

std::string Compare::ToString() const {
  return "(" + left_->ToString() + " " + std::string(CompareOpSymbol(op_)) + " " +
         right_->ToString() + ")";
}

InList::InList(std::shared_ptr<const Column> column,
               std::vector<std::shared_ptr<arrow::Scalar>> values, bool has_null, int position)
    : Node(NodeKind::kInList, arrow::boolean(), position),
      column_(std::move(column)),
      values_(std::move(values)),
      has_null_(has_null) {}

std::string InList::ToString() const {
  std::string items = RenderList(values_);
  if (has_null_) items += values_.empty() ? "NULL" : ", NULL";
  return "(" + column_->ToString() + " IN (" + items + "))";
}

Between::Between(std::shared_ptr<const Column> column, std::shared_ptr<arrow::Scalar> lower,
                 std::shared_ptr<arrow::Scalar> upper, int position)
    : Node(NodeKind::kBetween, arrow::boolean(), position),
      column_(std::move(column)),
      lower_(std::move(lower)),
      upper_(std::move(upper)) {}

std::string Between::ToString() const {
  return "(" + column_->ToString() + " BETWEEN " + RenderLiteral(*lower_) + " AND " +
         RenderLiteral(*upper_) + ")";
}

IsNull::IsNull(std::shared_ptr<const Column> column, int position)
    : Node(NodeKind::kIsNull, arrow::boolean(), position), column_(std::move(column)) {}

std::string IsNull::ToString() const { return "(" + column_->ToString() + " IS NULL)"; }

Like::Like(std::shared_ptr<const Column> column, std::string pattern, int position)
    : Like(std::move(column), std::move(pattern), nullptr, "\\", false, position) {}

Like::Like(std::shared_ptr<const Column> column, std::string pattern,
           std::shared_ptr<const Column> pattern_column, std::string escape, bool case_insensitive,
           int position)
    : Node(NodeKind::kLike, arrow::boolean(), position),
      column_(std::move(column)),
      pattern_(std::move(pattern)),
      pattern_column_(std::move(pattern_column)),
      escape_(std::move(escape)),
      case_insensitive_(case_insensitive) {}

std::string Like::ToString() const {
  std::string text = "(" + column_->ToString() + (case_insensitive_ ? " ILIKE " : " LIKE ") +
                     (pattern_column_ ? pattern_column_->ToString() : QuoteString(pattern_));
  if (escape_ != "\\") text += " ESCAPE " + QuoteString(escape_);
  return text + ")";
}

ArrayHas::ArrayHas(std::shared_ptr<const Column> column, ArrayMatch match,
                   std::vector<std::shared_ptr<arrow::Scalar>> values, int position)
    : Node(NodeKind::kArrayHas, arrow::boolean(), position),
      column_(std::move(column)),
      match_(match),
      values_(std::move(values)) {}

std::string ArrayHas::ToString() const {
  return std::string(match_ == ArrayMatch::kAny ? "array_has_any(" : "array_has_all(") +
         column_->ToString() + ", [" + RenderList(values_) + "])";
}

And::And(std::vector<NodePtr> children, int position)
    : Node(NodeKind::kAnd, arrow::boolean(), position), children_(std::move(children)) {}

std::string And::ToString() const { return JoinChildren(children_, " AND "); }

Or::Or(std::vector<NodePtr> children, int position)
    : Node(NodeKind::kOr, arrow::boolean(), position), children_(std::move(children)) {}

std::string Or::ToString() const { return JoinChildren(children_, " OR "); }

Not::Not(NodePtr child, int position)
    : Node(NodeKind::kNot, arrow::boolean(), position), child_(std::move(child)) {}

std::string Not::ToString() const {
  // NOT IN / NOT LIKE / NOT BETWEEN / IS NOT NULL read better than NOT (...), and parse back to
  // the same tree.
  const std::string inner = child_->ToString();
  switch (child_->kind()) {
    case NodeKind::kInList:
    case NodeKind::kLike:
    case NodeKind::kBetween: {
      const auto& column = child_->kind() == NodeKind::kInList ? child_->As<InList>().column()
                           : child_->kind() == NodeKind::kLike ? child_->As<Like>().column()
                                                               : child_->As<Between>().column();
      const std::string name = column.ToString();
      // inner is "(<name> <rest>)"; insert NOT after the name.
      return "(" + name + " NOT" + inner.substr(1 + name.size());
    }
    case NodeKind::kIsNull:
      return "(" + child_->As<IsNull>().column().ToString() + " IS NOT NULL)";
    default:
      return "(NOT " + inner + ")";
  }
}

Call::Call(const FunctionSpec& function, std::vector<NodePtr> arguments,
           std::shared_ptr<arrow::DataType> type, int position)
    : Node(NodeKind::kCall, std::move(type), position),
      function_(function),
      arguments_(std::move(arguments)) {}

std::string Call::ToString() const {
  const std::string symbol(function_.symbol);
  switch (function_.style) {
    case FunctionSpec::Style::kInfix:
      return JoinChildren(arguments_, " " + symbol + " ");
    case FunctionSpec::Style::kPrefix:
      return "(" + symbol + arguments_[0]->ToString() + ")";
    case FunctionSpec::Style::kPostfix:
      return "(" + arguments_[0]->ToString() + " " + symbol + ")";
    case FunctionSpec::Style::kLike: {
      std::string text =
          "(" + arguments_[0]->ToString() + " " + symbol + " " + arguments_[1]->ToString();
      const auto& escape = arguments_[2]->As<Literal>().value();
      if (static_cast<const arrow::BaseBinaryScalar&>(*escape).view() != "\\") {
        text += " ESCAPE " + arguments_[2]->ToString();
      }
      return text + ")";
    }
    case FunctionSpec::Style::kAny:
      return "(" + arguments_[0]->ToString() + " " + symbol + "(" + arguments_[1]->ToString() +
             "))";
    case FunctionSpec::Style::kFunction:
      break;
  }
  std::string text = symbol + "(";
  for (size_t i = 0; i < arguments_.size(); ++i) {
    text += (i > 0 ? ", " : "") + arguments_[i]->ToString();
  }
  return text + ")";
}

Cast::Cast(NodePtr operand, std::shared_ptr<arrow::DataType> type, bool try_cast, int position)
    : Node(NodeKind::kCast, std::move(type), position),
      operand_(std::move(operand)),
      try_cast_(try_cast) {}

std::string Cast::ToString() const {
  return std::string(try_cast_ ? "TRY_CAST(" : "CAST(") + operand_->ToString() + " AS " +
         TypeName(*type()) + ")";
}

Case::Case(std::vector<Branch> branches, NodePtr otherwise, std::shared_ptr<arrow::DataType> type,
           int position)
    : Node(NodeKind::kCase, std::move(type), position),
      branches_(std::move(branches)),
      otherwise_(std::move(otherwise)) {}

std::string Case::ToString() const {
  std::string text = "CASE";
  for (const auto& branch : branches_) {
    text += " WHEN " + branch.when->ToString() + " THEN " + branch.then->ToString();
  }
  return text + " ELSE " + otherwise_->ToString() + " END";
}

bool CanFail(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kCall: {
      const auto& call = node.As<Call>();
      if (call.function().can_fail) return true;
      for (const auto& argument : call.arguments()) {
        if (CanFail(*argument)) return true;
      }
      return false;
    }
    case NodeKind::kCast: {
      const auto& cast = node.As<Cast>();
      return (!cast.try_cast() && CastCanFail(*cast.operand().type(), *cast.type())) ||
             CanFail(cast.operand());
    }
    case NodeKind::kCase: {
      const auto& expression = node.As<Case>();
      for (const auto& branch : expression.branches()) {
        if (CanFail(*branch.when) || CanFail(*branch.then)) return true;
      }
      return CanFail(expression.otherwise());
    }
    case NodeKind::kCompare:
      return CanFail(node.As<Compare>().left()) || CanFail(node.As<Compare>().right());
    case NodeKind::kAnd:
      for (const auto& child : node.As<And>().children()) {
        if (CanFail(*child)) return true;
      }
      return false;
    case NodeKind::kOr:
      for (const auto& child : node.As<Or>().children()) {
        if (CanFail(*child)) return true;
      }
      return false;
    case NodeKind::kNot:
      return CanFail(node.As<Not>().child());
    default:
      return false;  // leaves over columns and literals
  }
}

}  // namespace tessera::expr
