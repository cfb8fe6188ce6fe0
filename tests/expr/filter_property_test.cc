// Randomized property test: Filter::Evaluate against a row-by-row reference evaluator.
//
// Random batches (several column types, nulls everywhere, sliced so offsets are non-zero) meet
// random predicate strings (nested AND / OR / NOT, every operator, literals on either side,
// out-of-range literals, NULLs, odd keyword case). Each generated predicate carries its own
// reference: a closure that evaluates it on plain C++ values with explicit three-valued logic,
// so nothing of the library is reused to compute the expected answer.
#include <gtest/gtest.h>

#include <arrow/api.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "expr/filter_test_util.h"
#include "tessera/expr/filter.h"

namespace tessera::expr::filter_property_test {
namespace {

using Int128 = __int128;
using Tri = std::optional<bool>;  // nullopt = unknown

Tri And3(Tri a, Tri b) {
  if (a == false || b == false) return false;
  if (!a || !b) return std::nullopt;
  return true;
}
Tri Or3(Tri a, Tri b) {
  if (a == true || b == true) return true;
  if (!a || !b) return std::nullopt;
  return false;
}
Tri Not3(Tri a) { return a ? Tri(!*a) : std::nullopt; }

constexpr int64_t kNanosPerDay = 86'400'000'000'000;

// A mathematical value: what a cell or a literal means, independent of Arrow.
struct Value {
  enum class Kind { kNull, kInteger, kReal, kText, kBoolean, kTime } kind = Kind::kNull;
  Int128 integer = 0;  // kInteger; kTime: nanoseconds since the epoch
  long double real = 0;
  std::string text;
  bool boolean = false;
};

Value Integer(Int128 v) { return {Value::Kind::kInteger, v, 0, "", false}; }
Value Real(long double v) { return {Value::Kind::kReal, 0, v, "", false}; }
Value Text(std::string v) { return {Value::Kind::kText, 0, 0, std::move(v), false}; }
Value Boolean(bool v) { return {Value::Kind::kBoolean, 0, 0, "", v}; }
Value Time(Int128 ns) { return {Value::Kind::kTime, ns, 0, "", false}; }

// -1, 0, 1, or 2 for unordered (NaN).
int Order(const Value& a, const Value& b) {
  using K = Value::Kind;
  const auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if ((a.kind == K::kInteger || a.kind == K::kReal) &&
      (b.kind == K::kInteger || b.kind == K::kReal)) {
    if (a.kind == K::kInteger && b.kind == K::kInteger) return sign(a.integer, b.integer);
    const long double x = a.kind == K::kInteger ? static_cast<long double>(a.integer) : a.real;
    const long double y = b.kind == K::kInteger ? static_cast<long double>(b.integer) : b.real;
    if (std::isnan(x) || std::isnan(y)) return 2;
    return sign(x, y);
  }
  if (a.kind == K::kText && b.kind == K::kText) return sign(a.text.compare(b.text), 0);
  if (a.kind == K::kBoolean && b.kind == K::kBoolean) return sign(a.boolean, b.boolean);
  if (a.kind == K::kTime && b.kind == K::kTime) return sign(a.integer, b.integer);
  ADD_FAILURE() << "reference compares incompatible values";
  return 0;
}

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };

Tri Apply(Op op, const Value& a, const Value& b) {
  if (a.kind == Value::Kind::kNull || b.kind == Value::Kind::kNull) return std::nullopt;
  const int order = Order(a, b);
  if (order == 2) return op == Op::kNe;
  switch (op) {
    case Op::kEq:
      return order == 0;
    case Op::kNe:
      return order != 0;
    case Op::kLt:
      return order < 0;
    case Op::kLe:
      return order <= 0;
    case Op::kGt:
      return order > 0;
    case Op::kGe:
      return order >= 0;
  }
  return std::nullopt;
}

Op Flip(Op op) {
  switch (op) {
    case Op::kLt:
      return Op::kGt;
    case Op::kLe:
      return Op::kGe;
    case Op::kGt:
      return Op::kLt;
    case Op::kGe:
      return Op::kLe;
    default:
      return op;
  }
}

// --- data --------------------------------------------------------------------------------

enum class ColumnKind {
  kInt64,
  kInt32,
  kUInt8,
  kUInt64,
  kFloat64,
  kString,
  kLargeString,
  kBool,
  kDate,
  kTimestamp,
  kTags
};

struct ColumnSpec {
  std::string name;
  ColumnKind kind;
};

const std::vector<ColumnSpec>& Columns() {
  static const std::vector<ColumnSpec> columns = {
      {"i64", ColumnKind::kInt64},      {"i32", ColumnKind::kInt32},   {"u8", ColumnKind::kUInt8},
      {"u64", ColumnKind::kUInt64},     {"f64", ColumnKind::kFloat64}, {"s", ColumnKind::kString},
      {"s2", ColumnKind::kLargeString}, {"flag", ColumnKind::kBool},   {"d", ColumnKind::kDate},
      {"ts", ColumnKind::kTimestamp},   {"tags", ColumnKind::kTags},
  };
  return columns;
}

struct Cell {
  Value value;                                   // kNull for a null cell
  std::vector<std::optional<std::string>> list;  // kTags
};

// Days 19720..19727 as text: 2023-12-29 .. 2024-01-05.
const std::vector<std::pair<int, std::string>>& Days() {
  static const std::vector<std::pair<int, std::string>> days = {
      {19720, "2023-12-29"}, {19721, "2023-12-30"}, {19722, "2023-12-31"}, {19723, "2024-01-01"},
      {19724, "2024-01-02"}, {19725, "2024-01-03"}, {19726, "2024-01-04"}, {19727, "2024-01-05"},
  };
  return days;
}

const std::vector<std::string>& Words() {
  static const std::vector<std::string> words = {"",     "a",    "ab",  "abc",  "b", "ba",
                                                 "it's", "100%", "a_c", "x\\y", "é", "éa"};
  return words;
}

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  uint64_t Below(uint64_t n) { return engine_() % n; }
  bool Chance(double p) { return static_cast<double>(engine_() % 1'000'000) < p * 1'000'000; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

 private:
  std::mt19937_64 engine_;
};

Cell RandomCell(ColumnKind kind, Random& random) {
  Cell cell;
  if (random.Chance(0.15)) {
    if (kind == ColumnKind::kTags) cell.value.kind = Value::Kind::kNull;
    return cell;
  }
  switch (kind) {
    case ColumnKind::kInt64:
      cell.value = random.Chance(0.1) ? Integer(random.Chance(0.5) ? INT64_MIN : INT64_MAX)
                                      : Integer(static_cast<int>(random.Below(13)) - 6);
      break;
    case ColumnKind::kInt32:
      cell.value = Integer(static_cast<int>(random.Below(13)) - 6);
      break;
    case ColumnKind::kUInt8:
      cell.value = Integer(random.Chance(0.2) ? 250 + random.Below(6) : random.Below(12));
      break;
    case ColumnKind::kUInt64:
      cell.value = random.Chance(0.3) ? Integer(random.Chance(0.5) ? (Int128(1) << 63) : UINT64_MAX)
                                      : Integer(random.Below(8));
      break;
    case ColumnKind::kFloat64: {
      static const std::vector<double> reals = {
          -2.5, -1, 0, 0.5, 1, 2, 2.5, 3.75, 1e300, -0.0, std::numeric_limits<double>::quiet_NaN()};
      cell.value = Real(random.Pick(reals));
      break;
    }
    case ColumnKind::kString:
    case ColumnKind::kLargeString:
      cell.value = Text(random.Pick(Words()));
      break;
    case ColumnKind::kBool:
      cell.value = Boolean(random.Chance(0.5));
      break;
    case ColumnKind::kDate:
      cell.value = Time(static_cast<Int128>(random.Pick(Days()).first) * kNanosPerDay);
      break;
    case ColumnKind::kTimestamp: {
      static const std::vector<int64_t> micros = {0, 1, 500'000, 36'000'000'000, 86'399'999'999};
      const Int128 us =
          static_cast<Int128>(random.Pick(Days()).first) * 86'400'000'000 + random.Pick(micros);
      cell.value = Time(us * 1000);
      break;
    }
    case ColumnKind::kTags: {
      cell.value = Boolean(true);  // non-null marker
      const int length = static_cast<int>(random.Below(5));
      static const std::vector<std::string> tags = {"a", "b", "c", "d"};
      for (int i = 0; i < length; ++i) {
        if (random.Chance(0.1)) {
          cell.list.push_back(std::nullopt);
        } else {
          cell.list.push_back(random.Pick(tags));
        }
      }
      break;
    }
  }
  return cell;
}

std::shared_ptr<arrow::DataType> ArrowType(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kInt64:
      return arrow::int64();
    case ColumnKind::kInt32:
      return arrow::int32();
    case ColumnKind::kUInt8:
      return arrow::uint8();
    case ColumnKind::kUInt64:
      return arrow::uint64();
    case ColumnKind::kFloat64:
      return arrow::float64();
    case ColumnKind::kString:
      return arrow::utf8();
    case ColumnKind::kLargeString:
      return arrow::large_utf8();
    case ColumnKind::kBool:
      return arrow::boolean();
    case ColumnKind::kDate:
      return arrow::date32();
    case ColumnKind::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO);
    case ColumnKind::kTags:
      return arrow::list(arrow::utf8());
  }
  return nullptr;
}

std::shared_ptr<arrow::Array> BuildArray(ColumnKind kind, const std::vector<Cell>& cells) {
  auto type = ArrowType(kind);
  std::unique_ptr<arrow::ArrayBuilder> builder = *arrow::MakeBuilder(type);
  for (const Cell& cell : cells) {
    if (cell.value.kind == Value::Kind::kNull) {
      EXPECT_TRUE(builder->AppendNull().ok());
      continue;
    }
    arrow::Status status;
    const auto& v = cell.value;
    switch (kind) {
      case ColumnKind::kInt64:
        status =
            static_cast<arrow::Int64Builder&>(*builder).Append(static_cast<int64_t>(v.integer));
        break;
      case ColumnKind::kInt32:
        status =
            static_cast<arrow::Int32Builder&>(*builder).Append(static_cast<int32_t>(v.integer));
        break;
      case ColumnKind::kUInt8:
        status =
            static_cast<arrow::UInt8Builder&>(*builder).Append(static_cast<uint8_t>(v.integer));
        break;
      case ColumnKind::kUInt64:
        status =
            static_cast<arrow::UInt64Builder&>(*builder).Append(static_cast<uint64_t>(v.integer));
        break;
      case ColumnKind::kFloat64:
        status = static_cast<arrow::DoubleBuilder&>(*builder).Append(static_cast<double>(v.real));
        break;
      case ColumnKind::kString:
        status = static_cast<arrow::StringBuilder&>(*builder).Append(v.text);
        break;
      case ColumnKind::kLargeString:
        status = static_cast<arrow::LargeStringBuilder&>(*builder).Append(v.text);
        break;
      case ColumnKind::kBool:
        status = static_cast<arrow::BooleanBuilder&>(*builder).Append(v.boolean);
        break;
      case ColumnKind::kDate:
        status = static_cast<arrow::Date32Builder&>(*builder).Append(
            static_cast<int32_t>(v.integer / kNanosPerDay));
        break;
      case ColumnKind::kTimestamp:
        status = static_cast<arrow::TimestampBuilder&>(*builder).Append(
            static_cast<int64_t>(v.integer / 1000));
        break;
      case ColumnKind::kTags: {
        auto& list = static_cast<arrow::ListBuilder&>(*builder);
        auto& strings = static_cast<arrow::StringBuilder&>(*list.value_builder());
        status = list.Append();
        for (const auto& element : cell.list) {
          if (element) {
            EXPECT_TRUE(strings.Append(*element).ok());
          } else {
            EXPECT_TRUE(strings.AppendNull().ok());
          }
        }
        break;
      }
    }
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
  return *builder->Finish();
}

struct Table {
  std::vector<std::vector<Cell>> cells;  // [column][row]
  int offset = 0;                        // rows sliced off the front of the batch
  std::shared_ptr<arrow::RecordBatch> batch;

  const Cell& At(size_t column, int row) const { return cells[column][offset + row]; }
};

Table RandomTable(Random& random) {
  Table table;
  table.offset = static_cast<int>(random.Below(4));
  const int rows = table.offset + static_cast<int>(random.Below(48));
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (const auto& spec : Columns()) {
    std::vector<Cell> cells;
    for (int i = 0; i < rows; ++i) cells.push_back(RandomCell(spec.kind, random));
    arrays.push_back(BuildArray(spec.kind, cells));
    fields.push_back(arrow::field(spec.name, ArrowType(spec.kind)));
    table.cells.push_back(std::move(cells));
  }
  table.batch = arrow::RecordBatch::Make(arrow::schema(fields), rows, arrays)->Slice(table.offset);
  return table;
}

// --- predicates ----------------------------------------------------------------------------

struct Predicate {
  enum class Shape { kAtom, kAnd, kOr, kNot } shape = Shape::kAtom;
  std::string text;
  std::function<Tri(const Table&, int)> eval;
};

struct Literal {
  std::string text;
  Value value;  // kNull for NULL
};

std::string QuoteString(const std::string& value, Random& random) {
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'') {
      quoted += random.Chance(0.5) ? "''" : "\\'";
    } else if (c == '\\') {
      quoted += "\\\\";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

class Generator {
 public:
  explicit Generator(Random& random) : random_(random) {}

  Predicate Make(int depth) {
    if (depth > 0 && random_.Chance(0.55)) {
      const auto choice = random_.Below(5);
      if (choice == 0) {
        Predicate child = Make(depth - 1);
        const bool wrap = child.shape != Predicate::Shape::kAtom || random_.Chance(0.3);
        Predicate result;
        result.shape = Predicate::Shape::kNot;
        result.text = Keyword("NOT") + (wrap ? " (" + child.text + ")" : " " + child.text);
        result.eval = [child](const Table& t, int row) { return Not3(child.eval(t, row)); };
        return result;
      }
      const bool is_and = choice <= 2;
      const int count = 2 + static_cast<int>(random_.Below(2));
      Predicate result;
      result.shape = is_and ? Predicate::Shape::kAnd : Predicate::Shape::kOr;
      std::vector<Predicate> children;
      for (int i = 0; i < count; ++i) {
        Predicate child = Make(depth - 1);
        // Parentheses are needed only where precedence would regroup: OR under AND.
        const bool needed = is_and && child.shape == Predicate::Shape::kOr;
        const bool wrap = needed || random_.Chance(0.3);
        if (i > 0) result.text += " " + Keyword(is_and ? "AND" : "OR") + " ";
        result.text += wrap ? "(" + child.text + ")" : child.text;
        children.push_back(std::move(child));
      }
      result.eval = [children, is_and](const Table& t, int row) {
        Tri value = children[0].eval(t, row);
        for (size_t i = 1; i < children.size(); ++i) {
          value =
              is_and ? And3(value, children[i].eval(t, row)) : Or3(value, children[i].eval(t, row));
        }
        return value;
      };
      return result;
    }
    return Atom();
  }

 private:
  std::string Keyword(std::string word) {
    const auto style = random_.Below(3);
    for (char& c : word) {
      if (style == 1 || (style == 2 && random_.Chance(0.5))) c = static_cast<char>(std::tolower(c));
    }
    return word;
  }

  size_t ColumnIndex(const std::string& name) {
    for (size_t i = 0; i < Columns().size(); ++i) {
      if (Columns()[i].name == name) return i;
    }
    ADD_FAILURE() << name;
    return 0;
  }

  // A random non-null literal suited to a column kind, with its exact meaning.
  Literal LiteralFor(ColumnKind kind) {
    switch (kind) {
      case ColumnKind::kInt64:
      case ColumnKind::kInt32:
      case ColumnKind::kUInt8:
      case ColumnKind::kUInt64:
      case ColumnKind::kFloat64: {
        Literal literal;
        if (random_.Chance(0.3)) {
          static const std::vector<std::string> reals = {
              "2.5", "-0.5",   "1e30",  "-1e30", "3.0", "254.5",  "0.5",
              "1e3", "-2.5E0", "1e300", ".5",    "2.",  "-1e-300"};
          literal.text = random_.Pick(reals);
          literal.value = Real(std::stod(literal.text));
        } else {
          static const std::vector<std::string> integers = {"-300",
                                                            "-1",
                                                            "0",
                                                            "1",
                                                            "2",
                                                            "3",
                                                            "5",
                                                            "7",
                                                            "10",
                                                            "127",
                                                            "250",
                                                            "255",
                                                            "256",
                                                            "300",
                                                            "9223372036854775807",
                                                            "-9223372036854775808",
                                                            "9223372036854775808",
                                                            "18446744073709551615",
                                                            "-18446744073709551615"};
          std::string text = random_.Chance(0.5)
                                 ? random_.Pick(integers)
                                 : std::to_string(static_cast<int>(random_.Below(15)) - 7);
          Int128 value = 0;
          const bool negative = text[0] == '-';
          for (size_t i = negative ? 1 : 0; i < text.size(); ++i)
            value = value * 10 + (text[i] - '0');
          if (negative) value = -value;
          if (negative && random_.Chance(0.2)) text = "- " + text.substr(1);
          literal.text = text;
          literal.value = Integer(value);
        }
        // Documented: literals compared with a float column are rounded to its precision.
        if (kind == ColumnKind::kFloat64 && literal.value.kind == Value::Kind::kInteger) {
          literal.value = Real(static_cast<double>(literal.value.integer));
        }
        return literal;
      }
      case ColumnKind::kString:
      case ColumnKind::kLargeString: {
        const std::string word = random_.Chance(0.9) ? random_.Pick(Words()) : "zz'\\";
        return {QuoteString(word, random_), Text(word)};
      }
      case ColumnKind::kBool: {
        const bool value = random_.Chance(0.5);
        return {Keyword(value ? "TRUE" : "FALSE"), Boolean(value)};
      }
      case ColumnKind::kDate:
      case ColumnKind::kTimestamp:
      case ColumnKind::kTags: {
        const auto& [day, text] = random_.Pick(Days());
        const Int128 midnight = static_cast<Int128>(day) * kNanosPerDay;
        switch (random_.Below(4)) {
          case 0:
            return {Keyword("DATE") + " '" + text + "'", Time(midnight)};
          case 1:
            return {"'" + text + "'", Time(midnight)};
          default: {
            static const std::vector<std::pair<std::string, int64_t>> times = {
                {"00:00:00", 0},
                {"00:00:00.000001", 1'000},
                {"00:00:00.5", 500'000'000},
                {"10:00:00", 36'000'000'000'000},
                {"10:00:00.000000001", 36'000'000'000'001},
                {"23:59:59.999999", 86'399'999'999'000},
                {"23:59:59.9999999", 86'399'999'999'900}};
            const auto& [clock, nanos] = random_.Pick(times);
            const std::string separator = random_.Chance(0.5) ? " " : "T";
            return {Keyword("TIMESTAMP") + " '" + text + separator + clock + "'",
                    Time(midnight + nanos)};
          }
        }
      }
    }
    return {};
  }

  Literal MaybeNull(ColumnKind kind) {
    if (random_.Chance(0.05)) return {Keyword("NULL"), Value{}};
    return LiteralFor(kind);
  }

  // Comparable columns: everything but the list.
  const ColumnSpec& ComparableColumn() {
    while (true) {
      const auto& spec = random_.Pick(Columns());
      if (spec.kind != ColumnKind::kTags) return spec;
    }
  }

  static std::function<Value(const Table&, int)> Reader(size_t column) {
    return [column](const Table& t, int row) { return t.At(column, row).value; };
  }

  Predicate Atom() {
    static const std::vector<std::pair<std::string, Op>> ops = {
        {"=", Op::kEq}, {"==", Op::kEq}, {"!=", Op::kNe}, {"<>", Op::kNe},
        {"<", Op::kLt}, {"<=", Op::kLe}, {">", Op::kGt},  {">=", Op::kGe}};
    Predicate atom;
    switch (random_.Below(11)) {
      case 0:
      case 1:
      case 2: {  // column op literal, or literal op column
        const auto& spec = ComparableColumn();
        const auto& [symbol, op] = random_.Pick(ops);
        const Literal literal = MaybeNull(spec.kind);
        const auto read = Reader(ColumnIndex(spec.name));
        const Value value = literal.value;
        if (random_.Chance(0.3)) {
          atom.text = literal.text + " " + symbol + " " + spec.name;
          atom.eval = [read, value, op = Flip(op)](const Table& t, int row) {
            return Apply(op, read(t, row), value);
          };
        } else {
          atom.text = spec.name + " " + symbol + " " + literal.text;
          atom.eval = [read, value, op = op](const Table& t, int row) {
            return Apply(op, read(t, row), value);
          };
        }
        return atom;
      }
      case 3: {  // column op column, within a type family
        static const std::vector<std::pair<std::string, std::string>> pairs = {
            {"i64", "u8"},  {"i64", "i32"}, {"i64", "u64"}, {"u8", "i32"}, {"u64", "u8"},
            {"f64", "i32"}, {"s", "s2"},    {"d", "ts"},    {"ts", "d"},   {"flag", "flag"}};
        const auto& [left, right] = random_.Pick(pairs);
        const auto& [symbol, op] = random_.Pick(ops);
        atom.text = left + " " + symbol + " " + right;
        const auto read_left = Reader(ColumnIndex(left));
        const auto read_right = Reader(ColumnIndex(right));
        const bool via_double = left == "f64";  // documented: integer vs float compares in float64
        atom.eval = [=, op = op](const Table& t, int row) {
          Value a = read_left(t, row);
          Value b = read_right(t, row);
          if (via_double && b.kind == Value::Kind::kInteger) {
            b = Real(static_cast<double>(b.integer));
          }
          return Apply(op, a, b);
        };
        return atom;
      }
      case 4: {  // [NOT] IN
        const auto& spec = ComparableColumn();
        const int count = 1 + static_cast<int>(random_.Below(4));
        std::vector<Value> values;
        std::string items;
        for (int i = 0; i < count; ++i) {
          const Literal literal = MaybeNull(spec.kind);
          items += (i > 0 ? ", " : "") + literal.text;
          values.push_back(literal.value);
        }
        const bool negated = random_.Chance(0.4);
        atom.text = spec.name + (negated ? " " + Keyword("NOT") : "") + " " + Keyword("IN") + " (" +
                    items + ")";
        const auto read = Reader(ColumnIndex(spec.name));
        atom.eval = [read, values, negated](const Table& t, int row) {
          Tri result = false;
          for (const auto& value : values)
            result = Or3(result, Apply(Op::kEq, read(t, row), value));
          return negated ? Not3(result) : result;
        };
        return atom;
      }
      case 5: {  // [NOT] BETWEEN
        const auto& spec = ComparableColumn();
        const Literal low = MaybeNull(spec.kind);
        const Literal high = MaybeNull(spec.kind);
        const bool negated = random_.Chance(0.4);
        atom.text = spec.name + (negated ? " " + Keyword("NOT") : "") + " " + Keyword("BETWEEN") +
                    " " + low.text + " " + Keyword("AND") + " " + high.text;
        const auto read = Reader(ColumnIndex(spec.name));
        atom.eval = [read, low = low.value, high = high.value, negated](const Table& t, int row) {
          const Value value = read(t, row);
          const Tri result = And3(Apply(Op::kGe, value, low), Apply(Op::kLe, value, high));
          return negated ? Not3(result) : result;
        };
        return atom;
      }
      case 6: {  // IS [NOT] NULL, any column
        const auto& spec = random_.Pick(Columns());
        const bool negated = random_.Chance(0.5);
        atom.text = spec.name + " " + Keyword("IS") + (negated ? " " + Keyword("NOT") : "") + " " +
                    Keyword("NULL");
        const size_t column = ColumnIndex(spec.name);
        atom.eval = [column, negated](const Table& t, int row) -> Tri {
          const bool is_null = t.At(column, row).value.kind == Value::Kind::kNull;
          return is_null != negated;
        };
        return atom;
      }
      case 7: {  // [NOT] LIKE
        const std::string name = random_.Chance(0.5) ? "s" : "s2";
        // \y escapes an ordinary character: x\y% is "starts with xy", not with x\y.
        static const std::vector<std::string> pieces = {"a", "b", "c", "%",   "_",  "\\%",  "\\_",
                                                        "'", "é", "1", "0",   "x",  "\\\\", "\\y",
                                                        "y", "%", "%", "\\x", "\\é"};
        std::string pattern;
        const int count = static_cast<int>(random_.Below(5));
        for (int i = 0; i < count; ++i) pattern += random_.Pick(pieces);
        const bool negated = random_.Chance(0.4);
        atom.text = name + (negated ? " " + Keyword("NOT") : "") + " " + Keyword("LIKE") + " " +
                    QuoteString(pattern, random_);
        const auto read = Reader(ColumnIndex(name));
        atom.eval = [read, pattern, negated](const Table& t, int row) -> Tri {
          const Value value = read(t, row);
          if (value.kind == Value::Kind::kNull) return std::nullopt;
          const bool match = Like(value.text, pattern);
          return match != negated;
        };
        return atom;
      }
      case 8: {  // array_has_any / array_has_all
        const bool any = random_.Chance(0.5);
        static const std::vector<std::string> tags = {"a", "b", "c", "d", "e"};
        const int count = static_cast<int>(random_.Below(4));
        std::vector<std::string> wanted;
        std::string items;
        for (int i = 0; i < count; ++i) {
          wanted.push_back(random_.Pick(tags));
          items += (i > 0 ? ", " : "") + QuoteString(wanted.back(), random_);
        }
        atom.text =
            std::string(any ? "array_has_any" : "ARRAY_HAS_ALL") + "(tags, [" + items + "])";
        const size_t column = ColumnIndex("tags");
        atom.eval = [column, wanted, any](const Table& t, int row) -> Tri {
          const Cell& cell = t.At(column, row);
          if (cell.value.kind == Value::Kind::kNull) return std::nullopt;
          const auto contains = [&](const std::string& tag) {
            for (const auto& element : cell.list) {
              if (element && *element == tag) return true;
            }
            return false;
          };
          if (any) {
            for (const auto& tag : wanted) {
              if (contains(tag)) return true;
            }
            return false;
          }
          for (const auto& tag : wanted) {
            if (!contains(tag)) return false;
          }
          return true;
        };
        return atom;
      }
      case 9: {  // a boolean column on its own
        atom.text = "flag";
        const auto read = Reader(ColumnIndex("flag"));
        atom.eval = [read](const Table& t, int row) -> Tri {
          const Value value = read(t, row);
          if (value.kind == Value::Kind::kNull) return std::nullopt;
          return value.boolean;
        };
        return atom;
      }
      default: {  // constants: TRUE, FALSE, NULL, or literal against literal
        switch (random_.Below(4)) {
          case 0:
            atom.text = Keyword("TRUE");
            atom.eval = [](const Table&, int) -> Tri { return true; };
            return atom;
          case 1:
            atom.text = Keyword("FALSE");
            atom.eval = [](const Table&, int) -> Tri { return false; };
            return atom;
          case 2:
            atom.text = Keyword("NULL");
            atom.eval = [](const Table&, int) -> Tri { return std::nullopt; };
            return atom;
          default: {
            const Literal a = LiteralFor(ColumnKind::kInt64);
            const Literal b = LiteralFor(ColumnKind::kInt64);
            const auto& [symbol, op] = random_.Pick(ops);
            atom.text = a.text + " " + symbol + " " + b.text;
            const Tri result = Apply(op, a.value, b.value);
            atom.eval = [result](const Table&, int) { return result; };
            return atom;
          }
        }
      }
    }
  }

  // SQL LIKE on code points: % any run, _ one character, backslash escapes the next one.
  static bool Like(const std::string& text, const std::string& pattern) {
    const auto decode = [](const std::string& s) {
      std::vector<std::string> points;
      for (size_t i = 0; i < s.size();) {
        size_t length = 1;
        while (i + length < s.size() &&
               (static_cast<unsigned char>(s[i + length]) & 0xC0) == 0x80) {
          ++length;
        }
        points.push_back(s.substr(i, length));
        i += length;
      }
      return points;
    };
    struct Token {
      enum { kLiteral, kOne, kAny } kind;
      std::string point;
    };
    std::vector<Token> tokens;
    const auto pattern_points = decode(pattern);
    for (size_t i = 0; i < pattern_points.size(); ++i) {
      const std::string& p = pattern_points[i];
      if (p == "\\" && i + 1 < pattern_points.size()) {
        tokens.push_back({Token::kLiteral, pattern_points[++i]});
      } else if (p == "%") {
        tokens.push_back({Token::kAny, ""});
      } else if (p == "_") {
        tokens.push_back({Token::kOne, ""});
      } else {
        tokens.push_back({Token::kLiteral, p});
      }
    }
    const auto points = decode(text);
    // matches[i][j]: tokens[i..] match points[j..].
    std::vector<std::vector<char>> matches(tokens.size() + 1,
                                           std::vector<char>(points.size() + 1, 0));
    matches[tokens.size()][points.size()] = 1;
    for (size_t i = tokens.size(); i-- > 0;) {
      for (size_t j = points.size() + 1; j-- > 0;) {
        const Token& token = tokens[i];
        if (token.kind == Token::kAny) {
          matches[i][j] = matches[i + 1][j] || (j < points.size() && matches[i][j + 1]);
        } else if (j < points.size() && (token.kind == Token::kOne || token.point == points[j])) {
          matches[i][j] = matches[i + 1][j + 1];
        }
      }
    }
    return matches[0][0];
  }

  Random& random_;
};

std::string Show(Tri value) { return value ? (*value ? "true" : "false") : "null"; }

TEST(FilterProperty, EvaluateMatchesARowByRowReference) {
  Random random(20240601);
  Generator generator(random);
  int pairs = 0;
  int failures = 0;
  int rows_checked = 0;
  int unknown_rows = 0;
  for (int round = 0; round < 250 && failures < 10; ++round) {
    const Table table = RandomTable(random);
    for (int p = 0; p < 16 && failures < 10; ++p) {
      const Predicate predicate = generator.Make(static_cast<int>(random.Below(4)));
      auto filter = Filter::Parse(predicate.text, table.batch->schema());
      if (!filter.ok()) {
        ADD_FAILURE() << predicate.text << ": " << filter.status().ToString();
        ++failures;
        continue;
      }
      auto result = (*filter)->Evaluate(*table.batch);
      auto selected = (*filter)->Select(*table.batch);
      if (!result.ok() || !selected.ok()) {
        ADD_FAILURE() << predicate.text << ": "
                      << (result.ok() ? selected.status() : result.status()).ToString();
        ++failures;
        continue;
      }
      ++pairs;
      const auto& truth = **result;
      ASSERT_EQ(truth.length(), table.batch->num_rows());
      ASSERT_EQ((*selected)->null_count(), 0);
      for (int row = 0; row < truth.length(); ++row) {
        const Tri expected = predicate.eval(table, row);
        const Tri actual = truth.IsNull(row) ? std::nullopt : Tri(truth.Value(row));
        ++rows_checked;
        unknown_rows += expected ? 0 : 1;
        if (expected != actual) {
          ADD_FAILURE() << "predicate: " << predicate.text
                        << "\nbound as:  " << (*filter)->ToString() << "\nrow " << row
                        << ": expected " << Show(expected) << ", got " << Show(actual)
                        << "\nbatch:\n"
                        << table.batch->Slice(row, 1)->ToString();
          ++failures;
          break;
        }
        EXPECT_EQ((*selected)->Value(row), expected == true);
      }
      // The normalized rendering parses back to itself.
      auto reparsed = Filter::Parse((*filter)->ToString(), table.batch->schema());
      ASSERT_TRUE(reparsed.ok()) << (*filter)->ToString() << ": " << reparsed.status().ToString();
      EXPECT_EQ((*reparsed)->ToString(), (*filter)->ToString()) << predicate.text;
    }
  }
  EXPECT_GE(pairs, 3000);
  // The generator must exercise unknowns, not just trivially true/false predicates.
  EXPECT_GT(unknown_rows, rows_checked / 20);
}

}  // namespace
}  // namespace tessera::expr::filter_property_test
