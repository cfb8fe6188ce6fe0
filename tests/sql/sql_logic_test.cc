// The sqllogictest-style suite of the SQL surface: every tests/sql/*.test file runs as one test
// against a fresh catalog (docs/sql.md is what the files check). Records, separated by blank
// lines ('#' starts a comment line):
//
//   statement ok                       the statement succeeds
//   statement error 1146 [text]        it fails with that code (and `text` in the message)
//   query [rowsort]                    it returns exactly these rows (tab-separated values,
//   SELECT ...                         NULL for null; rowsort: compared as sorted sets)
//   ----
//   1	a	NULL
//
// ${WORK} in a statement is the directory of the fixtures every file gets:
//   items.parquet     id int64, category string, price double: 10 rows, one null of each
//   embeddings.arrow  the synthetic generator's 500 rows of dimension 8 (seed 42): id, vector,
//                     category, price, ts, tags, text
#include <arrow/builder.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>
#include <arrow/table.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/temp_directory.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/parser.h"
#include "tessera/sql/session.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::sql::sql_logic_test {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(TESSERA_SQL_TEST_DIR)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

arrow::Status WriteFixtures(const fs::path& directory) {
  {
    arrow::Int64Builder id;
    arrow::StringBuilder category;
    arrow::DoubleBuilder price;
    const char* categories[] = {"a", "b", "c", "a", "b", nullptr, "a", "c", "b", "a"};
    for (int i = 0; i < 10; ++i) {
      RETURN_NOT_OK(id.Append(i));
      RETURN_NOT_OK(categories[i] ? category.Append(categories[i]) : category.AppendNull());
      RETURN_NOT_OK(i == 3 ? price.AppendNull() : price.Append(1.5 + i));
    }
    arrow::ArrayVector arrays(3);
    RETURN_NOT_OK(id.Finish(&arrays[0]));
    RETURN_NOT_OK(category.Finish(&arrays[1]));
    RETURN_NOT_OK(price.Finish(&arrays[2]));
    auto table = arrow::Table::Make(
        arrow::schema({arrow::field("id", arrow::int64()), arrow::field("category", arrow::utf8()),
                       arrow::field("price", arrow::float64())}),
        arrays);
    ARROW_ASSIGN_OR_RAISE(
        auto out, arrow::io::FileOutputStream::Open((directory / "items.parquet").string()));
    RETURN_NOT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out));
    RETURN_NOT_OK(out->Close());
  }
  synthetic::EmbeddingOptions options;
  options.rows = 500;
  options.dim = 8;
  options.clusters = 4;
  options.latent_dim = 4;
  ARROW_ASSIGN_OR_RAISE(auto reader, synthetic::MakeEmbeddingReader(options));
  ARROW_ASSIGN_OR_RAISE(
      auto out, arrow::io::FileOutputStream::Open((directory / "embeddings.arrow").string()));
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(out, reader->schema()));
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (batch == nullptr) break;
    RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  }
  RETURN_NOT_OK(writer->Close());
  return out->Close();
}

// A value as the .test files write it.
std::string Render(const arrow::Array& array, int64_t row) {
  if (array.IsNull(row)) return "NULL";
  auto scalar = array.GetScalar(row).ValueOrDie();
  switch (array.type_id()) {
    case arrow::Type::DOUBLE:
    case arrow::Type::FLOAT: {
      const double value = array.type_id() == arrow::Type::DOUBLE
                               ? static_cast<const arrow::DoubleScalar&>(*scalar).value
                               : static_cast<const arrow::FloatScalar&>(*scalar).value;
      char text[64];
      const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
      return std::string(text, end);
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return std::string(static_cast<const arrow::BaseBinaryScalar&>(*scalar).view());
    default:
      return scalar->ToString();
  }
}

std::vector<std::string> RenderRows(const arrow::Table& table) {
  auto combined = table.CombineChunksToBatch().ValueOrDie();
  std::vector<std::string> rows;
  for (int64_t row = 0; row < combined->num_rows(); ++row) {
    std::string line;
    for (int c = 0; c < combined->num_columns(); ++c) {
      if (c > 0) line += '\t';
      line += Render(*combined->column(c), row);
    }
    rows.push_back(std::move(line));
  }
  return rows;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Record {
  int line = 0;
  std::string header;  // "statement ok", "statement error 1146 text", "query rowsort"
  std::string sql;
  std::vector<std::string> expected;
};

std::vector<Record> ReadRecords(const std::string& path) {
  std::ifstream in(path);
  std::vector<Record> records;
  std::string line;
  int number = 0;
  Record current;
  bool in_expected = false;
  auto flush = [&] {
    if (!current.header.empty()) records.push_back(std::move(current));
    current = Record();
    in_expected = false;
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      flush();
      continue;
    }
    if (current.header.empty()) {
      if (line[0] == '#') continue;
      current.header = line;
      current.line = number;
      continue;
    }
    if (line == "----") {
      in_expected = true;
      continue;
    }
    if (in_expected) {
      current.expected.push_back(line);
    } else {
      current.sql += line + "\n";
    }
  }
  flush();
  return records;
}

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Runs) {
  testing::TempDirectory directory;
  const fs::path work = directory.path() / "fixtures";
  const fs::path catalog = directory.path() / "catalog";
  fs::create_directories(work);
  fs::create_directories(catalog);
  ASSERT_TRUE(WriteFixtures(work).ok());
  auto opened = Catalog::Open(catalog.string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Session session(std::move(*opened));
  const std::string path = std::string(TESSERA_SQL_TEST_DIR) + "/" + GetParam();
  const auto records = ReadRecords(path);
  ASSERT_FALSE(records.empty()) << path << " has no records";
  for (const auto& record : records) {
    const std::string where = GetParam() + ":" + std::to_string(record.line);
    const std::string sql = Replace(record.sql, "${WORK}", work.string());
    std::istringstream header(record.header);
    std::string kind, mode;
    header >> kind >> mode;
    auto result = session.ExecuteAll(sql);
    if (kind == "statement" && mode == "ok") {
      EXPECT_TRUE(result.ok()) << where << ": " << FormatSqlError(result.status()) << "\n" << sql;
    } else if (kind == "statement" && mode == "error") {
      int code = 0;
      header >> code;
      std::string text;
      std::getline(header, text);
      text.erase(0, text.find_first_not_of(' '));
      if (result.ok()) {
        ADD_FAILURE() << where << ": expected error " << code << ", the statement succeeded\n"
                      << sql;
        continue;
      }
      EXPECT_EQ(static_cast<int>(CodeOf(result.status())), code)
          << where << ": " << FormatSqlError(result.status());
      EXPECT_NE(result.status().message().find(text), std::string::npos)
          << where << ": message lacks '" << text << "': " << FormatSqlError(result.status());
    } else if (kind == "query") {
      if (!result.ok()) {
        ADD_FAILURE() << where << ": " << FormatSqlError(result.status()) << "\n" << sql;
        continue;
      }
      if (result->rows == nullptr) {
        ADD_FAILURE() << where << ": the statement returned no result set";
        continue;
      }
      auto rows = RenderRows(*result->rows);
      auto expected = record.expected;
      if (mode == "rowsort") {
        std::sort(rows.begin(), rows.end());
        std::sort(expected.begin(), expected.end());
      }
      std::string got;
      for (const auto& row : rows) got += row + "\n";
      std::string want;
      for (const auto& row : expected) want += row + "\n";
      EXPECT_EQ(got, want) << where << "\n" << sql;
    } else {
      ADD_FAILURE() << where << ": unknown record '" << record.header << "'";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, SqlLogicTest, ::testing::ValuesIn(TestFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 5);
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

}  // namespace

}  // namespace tessera::sql::sql_logic_test
