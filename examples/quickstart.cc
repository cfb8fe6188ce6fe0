// quickstart: the tessera C++ API from one include, end to end.
//
// Builds a small Arrow table in memory, creates a dataset from it in a fresh temporary
// directory, creates a BTREE index on a scalar column and an IVF_FLAT index on a vector column,
// runs a filtered scan and a filtered nearest-neighbour search through them, prints the results
// and how each query was answered (explain), and removes the directory again.
//
//   quickstart [DIRECTORY]   the dataset goes to DIRECTORY/quickstart-XXXXXX (default: the
//                            system's temporary directory); exit status 0 on success, 1 on error
//
// It uses only tessera/tessera.h (and Arrow, to build the input table).
#include <arrow/api.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "tessera/tessera.h"

namespace {

constexpr int kDimension = 8;
constexpr int64_t kRows = 2000;

// id int64, category string, price float64, vector fixed_size_list<float32>[kDimension]: a
// deterministic toy catalogue whose vectors lie near one of four directions (by category).
arrow::Result<std::shared_ptr<arrow::Table>> MakeItems() {
  const std::vector<std::string> categories = {"books", "garden", "music", "toys"};
  arrow::Int64Builder ids;
  arrow::StringBuilder category_names;
  arrow::DoubleBuilder prices;
  auto element_type = arrow::float32();
  auto vector_type = arrow::fixed_size_list(element_type, kDimension);
  auto elements = std::make_shared<arrow::FloatBuilder>();
  arrow::FixedSizeListBuilder vectors(arrow::default_memory_pool(), elements, vector_type);
  for (int64_t id = 0; id < kRows; ++id) {
    const int category = static_cast<int>(id % categories.size());
    ARROW_RETURN_NOT_OK(ids.Append(id));
    ARROW_RETURN_NOT_OK(category_names.Append(categories[category]));
    ARROW_RETURN_NOT_OK(prices.Append(static_cast<double>((id * 37) % 1000) / 10.0));
    ARROW_RETURN_NOT_OK(vectors.Append());
    for (int d = 0; d < kDimension; ++d) {
      const float base = (d % categories.size() == static_cast<size_t>(category)) ? 1.0f : 0.0f;
      // Deterministic noise in [0, 0.25): a multiplicative hash of (id, d).
      const uint64_t hash =
          (static_cast<uint64_t>(id * kDimension + d) + 1) * 0x9E3779B97F4A7C15ull;
      const float noise = static_cast<float>(hash >> 40) / static_cast<float>(1ull << 24) / 4.0f;
      ARROW_RETURN_NOT_OK(elements->Append(base + noise));
    }
  }
  std::shared_ptr<arrow::Array> id_array, category_array, price_array, vector_array;
  ARROW_RETURN_NOT_OK(ids.Finish(&id_array));
  ARROW_RETURN_NOT_OK(category_names.Finish(&category_array));
  ARROW_RETURN_NOT_OK(prices.Finish(&price_array));
  ARROW_RETURN_NOT_OK(vectors.Finish(&vector_array));
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("category", arrow::utf8()),
                     arrow::field("price", arrow::float64()), arrow::field("vector", vector_type)});
  return arrow::Table::Make(schema, {id_array, category_array, price_array, vector_array});
}

// Prints a result table row by row: a header line, then one line of values per row.
arrow::Status PrintRows(const arrow::Table& table) {
  for (int c = 0; c < table.num_columns(); ++c) {
    std::cout << (c > 0 ? " | " : "  ") << table.field(c)->name();
  }
  std::cout << "\n";
  for (int64_t row = 0; row < table.num_rows(); ++row) {
    for (int c = 0; c < table.num_columns(); ++c) {
      ARROW_ASSIGN_OR_RAISE(auto value, table.column(c)->GetScalar(row));
      std::cout << (c > 0 ? " | " : "  ") << value->ToString();
    }
    std::cout << "\n";
  }
  return arrow::Status::OK();
}

void PrintExplain(const tessera::query::Explain& explain) {
  std::cout << "explain:\n" << explain.ToString();
}

arrow::Status Run(const std::string& root) {
  using namespace tessera;

  // 1. A dataset (version 1) from an in-memory table, in fragments of at most 500 rows.
  ARROW_ASSIGN_OR_RAISE(auto items, MakeItems());
  dataset::WriteOptions write;
  write.max_rows_per_file = 500;
  ARROW_ASSIGN_OR_RAISE(
      auto version1,
      dataset::Dataset::Create(root, std::make_shared<arrow::TableBatchReader>(items), write));
  ARROW_ASSIGN_OR_RAISE(auto versions, version1->ListVersions());
  std::cout << "created " << root << ": version " << version1->version() << ", "
            << version1->CountRows() << " rows in " << versions.back().num_fragments
            << " fragments\n";

  // 2. Two indexes, each one commit: a BTREE on price, an IVF_FLAT on vector. Index names are
  //    case-insensitive in lookups ("PRICE_IDX" finds "price_idx").
  ARROW_ASSIGN_OR_RAISE(
      auto version2,
      index::CreateIndex(
          *version1, {.name = "price_idx", .column = "price", .family = "BTREE", .params = {}}));
  ARROW_ASSIGN_OR_RAISE(auto version3,
                        index::CreateIndex(*version2, {.name = "vector_idx",
                                                       .column = "vector",
                                                       .family = "IVF_FLAT",
                                                       .params = {{"num_partitions", "4"}}}));
  for (const auto& summary : index::ListIndexes(*version3)) {
    std::cout << "index " << summary.name << ": " << summary.family << " on " << summary.column
              << ", " << summary.num_segments << " segment(s), " << summary.indexed_rows
              << " rows indexed\n";
  }
  ARROW_ASSIGN_OR_RAISE(auto described, index::DescribeIndex(*version3, "PRICE_IDX"));
  std::cout << "'PRICE_IDX' resolves to index '" << described.name << "'\n";

  // 3. A filtered read through the BTREE: the same rows as an unindexed scan, cheaper. A
  //    snapshot opens the version's segments once for every query made on it; the read streams.
  auto snapshot = query::Snapshot::Make(version3);
  dataset::ScanOptions scan;
  scan.columns = {"id", "category", "price"};
  scan.filter = "price < 1.5 AND category = 'books'";
  query::Explain scan_explain;
  ARROW_ASSIGN_OR_RAISE(auto stream, query::Read(snapshot, scan, &scan_explain));
  ARROW_ASSIGN_OR_RAISE(auto cheap, stream->ToTable());
  std::cout << "\nscan --where \"" << scan.filter << "\": " << cheap->num_rows() << " rows\n";
  ARROW_RETURN_NOT_OK(PrintRows(*cheap));
  PrintExplain(scan_explain);
  // A count the index answers exactly reads no data file.
  query::Explain count_explain;
  ARROW_ASSIGN_OR_RAISE(uint64_t cheap_rows,
                        query::Count(*snapshot, "price < 1.5", &count_explain));
  std::cout << "\ncount --where \"price < 1.5\": " << cheap_rows << "\n";
  PrintExplain(count_explain);

  // 4. The 5 nearest neighbours of a query vector among the rows under 90, prefiltered (so 5
  //    rows come back whenever 5 pass), through the IVF_FLAT segment, probing 1 of its 4
  //    partitions; the results carry `_distance` (squared l2: smaller is closer).
  query::NearestOptions nearest;
  nearest.column = "vector";
  nearest.query.assign(kDimension, 0.05f);
  nearest.query[0] = 1.0f;
  nearest.query[4] = 1.0f;
  nearest.k = 5;
  nearest.nprobes = 1;
  nearest.filter = "price < 90";
  nearest.prefilter = true;
  nearest.columns = {"id", "category", "price"};
  query::Explain nearest_explain;
  ARROW_ASSIGN_OR_RAISE(auto neighbours, query::Nearest(*version3, nearest, &nearest_explain));
  std::cout << "\nnearest k=5 --where \"" << nearest.filter
            << "\" (prefilter): " << neighbours->num_rows() << " rows\n";
  ARROW_RETURN_NOT_OK(PrintRows(*neighbours));
  PrintExplain(nearest_explain);

  // 5. Errors are typed: branch on the kind, not on the message.
  auto missing = index::DropIndex(*version3, "no_such_index");
  if (missing.ok() || KindOf(missing.status()) != ErrorKind::kNotFound) {
    return arrow::Status::Invalid("expected NotFound for an unknown index");
  }
  std::cout << "\ndropping an unknown index: " << ErrorKindName(KindOf(missing.status())) << ": "
            << missing.status().message() << "\n";
  if (neighbours->num_rows() != 5 || cheap->num_rows() == 0) {
    return arrow::Status::Invalid("unexpected result sizes");
  }
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  std::error_code error;
  const std::filesystem::path parent =
      argc > 1 ? std::filesystem::path(argv[1]) : std::filesystem::temp_directory_path(error);
  std::string pattern = (parent / "quickstart-XXXXXX").string();
  if (error || mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "error: IOError: cannot create a temporary directory under " << parent << "\n";
    return 1;
  }
  const std::string directory = pattern;
  const arrow::Status status = Run(directory + "/items");
  std::filesystem::remove_all(directory, error);
  if (!status.ok()) {
    std::cerr << "error: " << tessera::ErrorKindName(tessera::KindOf(status)) << ": "
              << status.message() << "\n";
    return 1;
  }
  return 0;
}
