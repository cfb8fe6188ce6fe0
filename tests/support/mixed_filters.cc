#include "support/mixed_filters.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "support/status_assertions.h"

namespace tessera::testing {

namespace {

constexpr int64_t kSecond = 1000000;
constexpr int64_t kEpoch2024 = 1704067200LL * kSecond;  // 2024-01-01 00:00:00 UTC, in µs

}  // namespace

std::shared_ptr<arrow::Schema> MixedFilterSchema() {
  return arrow::schema({
      arrow::field("id", arrow::int64()),
      arrow::field("i64", arrow::int64()),
      arrow::field("f64", arrow::float64()),
      arrow::field("s", arrow::utf8()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)),
      arrow::field("flag", arrow::boolean()),
      arrow::field("tags", arrow::list(arrow::utf8())),
  });
}

const std::vector<std::string>& MixedTags() {
  static const std::vector<std::string> tags = {"red", "green", "blue", "", "Red", "red "};
  return tags;
}

const std::vector<std::string>& MixedWords() {
  // "A%b", "a\\b" and "Cat" give LIKE escapes, ESCAPE and ILIKE something to tell apart.
  static const std::vector<std::string> words = {"",    "a",   "ab", "b",   "ba",   "c",
                                                 "cat", "dog", "z",  "A%b", "a\\b", "Cat"};
  return words;
}

std::shared_ptr<arrow::RecordBatch> MixedFilterBatch(std::mt19937_64& random, int64_t first_id,
                                                     int64_t rows) {
  arrow::Int64Builder id, i64;
  arrow::DoubleBuilder f64;
  arrow::StringBuilder s;
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO),
                             arrow::default_memory_pool());
  arrow::BooleanBuilder flag;
  arrow::ListBuilder tags(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>());
  auto* tag_values = static_cast<arrow::StringBuilder*>(tags.value_builder());
  // Tags draw from their own engine, so that the other columns stay what they were before the
  // column was added.
  std::mt19937_64 tag_random(random() ^ 0x7a6753u);
  auto chance = [&](int percent) { return static_cast<int>(random() % 100) < percent; };
  for (int64_t row = 0; row < rows; ++row) {
    EXPECT_OK(id.Append(first_id + row));
    if (chance(10)) {
      EXPECT_OK(i64.AppendNull());
    } else {
      EXPECT_OK(i64.Append(static_cast<int64_t>(random() % 41) - 20));
    }
    const int kind = static_cast<int>(random() % 100);
    if (kind < 8) {
      EXPECT_OK(f64.AppendNull());
    } else if (kind < 13) {
      EXPECT_OK(f64.Append(std::nan("")));
    } else if (kind < 16) {
      EXPECT_OK(f64.Append(-0.0));
    } else if (kind < 19) {
      EXPECT_OK(f64.Append(0.0));
    } else {
      EXPECT_OK(f64.Append(static_cast<double>(static_cast<int>(random() % 81) - 40) * 0.25));
    }
    if (chance(10)) {
      EXPECT_OK(s.AppendNull());
    } else {
      EXPECT_OK(s.Append(MixedWords()[random() % MixedWords().size()]));
    }
    if (chance(10)) {
      EXPECT_OK(ts.AppendNull());
    } else {
      EXPECT_OK(ts.Append(kEpoch2024 + static_cast<int64_t>(random() % 100) * kSecond));
    }
    if (chance(10)) {
      EXPECT_OK(flag.AppendNull());
    } else {
      EXPECT_OK(flag.Append(chance(50)));
    }
    // About 10% null lists, 10% empty ones; elements repeat, about 8% are null.
    const uint64_t list_kind = tag_random() % 10;
    if (list_kind == 0) {
      EXPECT_OK(tags.AppendNull());
      continue;
    }
    EXPECT_OK(tags.Append());
    const uint64_t length = list_kind == 1 ? 0 : 1 + tag_random() % 3;
    for (uint64_t i = 0; i < length; ++i) {
      if (tag_random() % 12 == 0) {
        EXPECT_OK(tag_values->AppendNull());
      } else {
        EXPECT_OK(tag_values->Append(MixedTags()[tag_random() % MixedTags().size()]));
      }
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> arrays(7);
  EXPECT_OK(id.Finish(&arrays[0]));
  EXPECT_OK(i64.Finish(&arrays[1]));
  EXPECT_OK(f64.Finish(&arrays[2]));
  EXPECT_OK(s.Finish(&arrays[3]));
  EXPECT_OK(ts.Finish(&arrays[4]));
  EXPECT_OK(flag.Finish(&arrays[5]));
  EXPECT_OK(tags.Finish(&arrays[6]));
  return arrow::RecordBatch::Make(MixedFilterSchema(), rows, arrays);
}

dataset::WriteOptions SmallFiles() {
  dataset::WriteOptions options;
  options.max_rows_per_file = 200;
  options.rows_per_batch = 64;
  return options;
}

std::string PredicateGenerator::Predicate(int depth) {
  const int choice = depth <= 0 ? 0 : Pick(10);
  if (choice < 5) return Leaf();
  if (choice < 7) return Join(" AND ", depth);
  if (choice < 9) return Join(" OR ", depth);
  return "NOT (" + Predicate(depth - 1) + ")";
}

std::string PredicateGenerator::Join(const char* op, int depth) {
  const int count = 2 + Pick(2);
  std::string text = "(" + Predicate(depth - 1);
  for (int i = 1; i < count; ++i) text += op + Predicate(depth - 1);
  return text + ")";
}

std::string PredicateGenerator::Int() { return std::to_string(Pick(45) - 22); }

std::string PredicateGenerator::Float() {
  static const char* const kSpecial[] = {"0", "-0.0", "0.0", "1.5", "-2.25", "10", "-10.5"};
  if (Pick(3) == 0) return kSpecial[Pick(7)];
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(Pick(85) - 42) * 0.25);
  return text;
}

std::string PredicateGenerator::Word() {
  static const char* const kExtra[] = {"aa", "bz", "cab", "zz"};
  if (Pick(5) == 0) return std::string("'") + kExtra[Pick(4)] + "'";
  std::string quoted = "'";
  for (char c : MixedWords()[static_cast<size_t>(Pick(static_cast<int>(MixedWords().size())))]) {
    quoted += c == '\\' ? "\\\\" : std::string(1, c);
  }
  return quoted + "'";
}

std::string PredicateGenerator::Time() {
  const int seconds = Pick(105);
  char text[64];
  std::snprintf(text, sizeof(text), "TIMESTAMP '2024-01-01 00:%02d:%02d'", seconds / 60,
                seconds % 60);
  return text;
}

std::string PredicateGenerator::Literal(const std::string& column) {
  if (column == "i64") return Int();
  if (column == "f64") return Float();
  if (column == "s") return Word();
  if (column == "id") return std::to_string(Pick(1600));
  return Time();
}

std::string PredicateGenerator::Leaf() {
  static const char* const kColumns[] = {"i64", "f64", "s", "ts"};
  const std::string column = kColumns[Pick(4)];
  const std::string literal = Literal(column);
  return LeafWith(column, literal, Pick(14));
}

std::string PredicateGenerator::Tag() {
  if (Pick(6) == 0) return "'absent'";
  return "'" + MixedTags()[static_cast<size_t>(Pick(static_cast<int>(MixedTags().size())))] + "'";
}

std::string PredicateGenerator::TagsLeaf() {
  std::string array = "[" + Tag();
  const int extra = Pick(3);
  for (int i = 0; i < extra; ++i) array += ", " + Tag();
  array += "]";
  std::string leaf;
  switch (Pick(7)) {
    case 0:
    case 1:
      leaf = "array_has_any(tags, " + array + ")";
      break;
    case 2:
    case 3:
      leaf = "array_has_all(tags, " + array + ")";
      break;
    case 4:
      leaf = "array_contains(tags, " + Tag() + ")";
      break;
    case 5:
      leaf = Pick(2) ? "tags IS NULL" : "tags IS NOT NULL";
      break;
    default: {
      static const char* const kOdd[] = {"array_has_any(tags, [])", "array_has_all(tags, [])",
                                         "array_contains(tags, NULL)",
                                         "list_contains(tags, 'red')"};
      leaf = kOdd[Pick(4)];
      break;
    }
  }
  return Pick(4) == 0 ? "NOT " + leaf : leaf;
}

std::string PredicateGenerator::LeafOn(const std::string& column) {
  if (column == "tags") return TagsLeaf();
  if (column == "flag") {
    static const char* const kFlag[] = {"flag",           "NOT flag",           "flag = FALSE",
                                        "flag != TRUE",   "flag IS NULL",       "flag IS NOT NULL",
                                        "flag IN (TRUE)", "flag NOT IN (FALSE)"};
    return kFlag[Pick(8)];
  }
  if (column == "s" && Pick(3) == 0) return SubstringLeaf();
  const std::string literal = Literal(column);
  const int shape = Pick(10);
  if (shape < 7) return LeafWith(column, literal, shape);
  if (shape == 7) return "NOT (" + LeafWith(column, literal, Pick(7)) + ")";
  return OddLeaf(column);
}

std::string PredicateGenerator::SubstringLeaf() {
  const std::string word = Word();
  const std::string inner = word.substr(1, word.size() - 2);  // quoted: backslashes doubled
  switch (Pick(6)) {
    case 0:
      return "contains(s, " + word + ")";
    case 1:
      return "starts_with(s, " + word + ")";
    case 2:
      return "s LIKE '%" + inner + "%'";
    case 3:
      return "s LIKE '" + inner + "%'";
    case 4:
      return "s ILIKE '%" + inner + "%'";
    default:
      return "s NOT LIKE '%" + inner + "%'";
  }
}

std::string PredicateGenerator::OddLeaf(const std::string& column) {
  // Literals the binder rewrites (no int64 equals 2.5), extremes, -0.0 in IN lists, and
  // comparisons with another column.
  static const std::vector<std::string> kI64 = {
      "i64 = 2.5",        "i64 > 2.5",  "i64 IN (2.5, 3, -1)",       "i64 BETWEEN -1.5 AND 3.5",
      "i64 NOT IN (2.5)", "i64 != 1.5", "i64 < 9223372036854775807", "i64 >= -9223372036854775808",
      "i64 <= 1e30",      "i64 = f64"};
  static const std::vector<std::string> kF64 = {
      "f64 > 1e308",       "f64 < -1e308", "f64 IN (-0.0)", "f64 IN (0.0, -0.0)",
      "f64 NOT IN (-0.0)", "f64 >= i64",   "f64 = 0",       "f64 BETWEEN -0.0 AND -0.0",
      "f64 != -0.0",       "f64 < 1e300"};
  static const std::vector<std::string> kS = {
      "s LIKE 'a%'", "s NOT LIKE '%a'", "s = ''", "s > ''", "s IN ('', NULL)",
      "s NOT IN ('a', NULL)", "s >= 'ca'", "s BETWEEN '' AND 'b'",
      // LIKE shapes no index answers: escapes in every shape, ESCAPE, ILIKE, a column pattern.
      "s LIKE '%\\%%'", "s LIKE '%\\\\b'", "s LIKE 'a\\\\%'", "s NOT LIKE 'A!%%' ESCAPE '!'",
      "s LIKE '%\\\\b' ESCAPE ''", "s ILIKE 'c%'", "s NOT ILIKE '%B'", "s ILIKE '_a_'", "s LIKE s",
      "s NOT ILIKE s"};
  static const std::vector<std::string> kId = {"id < i64",
                                               "id >= 0",
                                               "id IN (0)",
                                               "id > -1.5",
                                               "id BETWEEN 10 AND 5",
                                               "id NOT BETWEEN 0 AND 100"};
  static const std::vector<std::string> kTs = {"ts > DATE '2024-01-01'",
                                               "ts <= '2024-01-01 00:00:30'",
                                               "ts NOT IN (TIMESTAMP '2024-01-01 00:00:05')"};
  const auto pick = [&](const std::vector<std::string>& leaves) {
    return leaves[static_cast<size_t>(Pick(static_cast<int>(leaves.size())))];
  };
  if (column == "i64") return pick(kI64);
  if (column == "f64") return pick(kF64);
  if (column == "s") return pick(kS);
  if (column == "id") return pick(kId);
  return pick(kTs);
}

std::string PredicateGenerator::LeafWith(const std::string& column, const std::string& literal,
                                         int shape) {
  static const char* const kOps[] = {"=", "!=", "<", "<=", ">", ">="};
  switch (shape) {
    case 0:
    case 1:
    case 2:
      return column + " " + kOps[Pick(6)] + " " + literal;
    case 3:
      return literal + " " + kOps[Pick(6)] + " " + column;  // the binder flips it
    case 4:
      return column + (Pick(2) ? " NOT" : "") + " BETWEEN " + literal + " AND " + Literal(column);
    case 5: {
      std::string list = literal;
      const int extra = Pick(4);
      for (int i = 0; i < extra; ++i) list += ", " + Literal(column);
      if (Pick(4) == 0) list += ", NULL";
      return column + (Pick(2) ? " NOT" : "") + " IN (" + list + ")";
    }
    case 6:
      return column + (Pick(2) ? " IS NOT NULL" : " IS NULL");
    case 7:
      return Pick(2) ? "flag" : (Pick(2) ? "flag = TRUE" : "flag != FALSE");
    case 8:
      return "id < " + std::to_string(Pick(1600));  // id: unindexed in some tests
    case 9:
      if (Pick(2) == 0) return SubstringLeaf();
      return "s LIKE '" + std::string(Pick(2) ? "a" : "c") + "%'";  // too short for n-grams
    case 10:
      return "i64 < id";  // column against column: only rechecked
    case 11: {
      static const char* const kConstants[] = {"TRUE", "FALSE", "i64 = NULL"};
      return kConstants[Pick(3)];
    }
    default:
      return column + " = " + literal;
  }
}

}  // namespace tessera::testing
