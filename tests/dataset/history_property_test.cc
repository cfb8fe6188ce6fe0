// Property: over random histories of appends, deletes and overwrites, every version reads back
// exactly what a simple in-memory model says it holds — by scan, by filtered count and by take.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"

namespace tessera::dataset::history_property_test {
namespace {

using testing::Int64Column;
using testing::SimpleReader;
using testing::TempDirectory;

// The value/name columns of SimpleBatch as functions of id.
bool ValueIsNull(int64_t id) { return id % 7 == 3; }
double Value(int64_t id) { return static_cast<double>(id) * 0.5; }
bool NameIsNull(int64_t id) { return id % 11 == 4; }
std::string Name(int64_t id) { return "name" + std::to_string(id % 5); }

struct Predicate {
  std::string text;
  std::function<bool(int64_t)> matches;  // SQL truth: unknown counts as false
};

Predicate RandomPredicate(std::mt19937_64& random, int64_t max_id) {
  const int64_t a = static_cast<int64_t>(random() % static_cast<uint64_t>(max_id + 1));
  const int64_t width = static_cast<int64_t>(random() % 40);
  switch (random() % 5) {
    case 0:
      return {"id >= " + std::to_string(a) + " AND id < " + std::to_string(a + width),
              [=](int64_t id) { return id >= a && id < a + width; }};
    case 1: {
      const int64_t b = a + 3, c = a + 17;
      return {
          "id IN (" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")",
          [=](int64_t id) { return id == a || id == b || id == c; }};
    }
    case 2: {
      const double limit = static_cast<double>(a) * 0.5;
      return {"value < " + std::to_string(limit) + " AND id > " + std::to_string(a - width),
              [=](int64_t id) { return !ValueIsNull(id) && Value(id) < limit && id > a - width; }};
    }
    case 3: {
      const std::string name = "name" + std::to_string(random() % 5);
      return {"name = '" + name + "' AND id < " + std::to_string(a),
              [=](int64_t id) { return !NameIsNull(id) && Name(id) == name && id < a; }};
    }
    default:
      return {"name IS NULL OR NOT (id <> " + std::to_string(a) + ")",
              [=](int64_t id) { return NameIsNull(id) || id == a; }};
  }
}

void ExpectVersionMatches(const Dataset& dataset, const std::vector<int64_t>& expected,
                          std::mt19937_64& random, int64_t max_id) {
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_address = true;
  auto table = dataset.ScanToTable(options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(Int64Column(**table, "id"), expected) << "version " << dataset.version();
  EXPECT_EQ(dataset.CountRows(), expected.size());

  Predicate predicate = RandomPredicate(random, max_id);
  uint64_t expected_count = 0;
  for (int64_t id : expected) expected_count += predicate.matches(id) ? 1 : 0;
  auto count = dataset.CountRows(predicate.text);
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, expected_count) << predicate.text;

  if (expected.empty()) return;
  auto combined = (*table)->CombineChunks().ValueOrDie();
  auto addresses = std::static_pointer_cast<arrow::UInt64Array>(
      combined->GetColumnByName(kRowAddressColumn)->chunk(0));
  std::vector<uint64_t> picks;
  std::vector<int64_t> picked_ids;
  for (int i = 0; i < 20; ++i) {
    const auto row = static_cast<int64_t>(random() % expected.size());
    picks.push_back(addresses->Value(row));
    picked_ids.push_back(expected[static_cast<size_t>(row)]);
  }
  auto taken = dataset.Take(picks, {"id"});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(Int64Column(**taken, "id"), picked_ids);
}

TEST(DatasetProperty, RandomHistoriesReadBackExactlyAtEveryVersion) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    TempDirectory directory;
    const std::string path = directory.Child("ds");
    int64_t next_id = 0;
    auto random_options = [&] {
      WriteOptions options;
      options.max_rows_per_file = 1 + random() % 200;
      options.rows_per_batch = 1 + random() % 64;
      return options;
    };

    const int64_t initial = 1 + static_cast<int64_t>(random() % 300);
    auto dataset = Dataset::Create(path, SimpleReader(0, initial), random_options());
    ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
    next_id = initial;
    std::vector<std::vector<int64_t>> history = {{}};
    for (int64_t id = 0; id < initial; ++id) history[0].push_back(id);
    std::shared_ptr<Dataset> current = *dataset;

    for (int step = 0; step < 25; ++step) {
      std::vector<int64_t> model = history.back();
      const uint64_t choice = random() % 10;
      arrow::Result<std::shared_ptr<Dataset>> next;
      if (choice < 5) {
        const int64_t rows = 1 + static_cast<int64_t>(random() % 250);
        next =
            current->Append(SimpleReader(next_id, rows, 4, 1 + random() % 100), random_options());
        for (int64_t id = next_id; id < next_id + rows; ++id) model.push_back(id);
        next_id += rows;
      } else if (choice < 9) {
        Predicate predicate = RandomPredicate(random, next_id);
        next = current->Delete(predicate.text, random_options());
        std::erase_if(model, predicate.matches);
      } else {
        const int64_t rows = static_cast<int64_t>(random() % 100);
        next = current->Overwrite(SimpleReader(next_id, rows), random_options());
        model.clear();
        for (int64_t id = next_id; id < next_id + rows; ++id) model.push_back(id);
        next_id += rows;
      }
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      current = *next;
      // A delete matching nothing commits no version.
      if (current->version() == history.size()) {
        EXPECT_EQ(model, history.back());
        continue;
      }
      ASSERT_EQ(current->version(), history.size() + 1);
      history.push_back(model);
      ExpectVersionMatches(*current, model, random, next_id);
    }
    // Time travel: every version still reads back what it held.
    for (uint64_t version = 1; version <= history.size(); ++version) {
      auto old = Dataset::Open(path, version);
      ASSERT_TRUE(old.ok()) << old.status().ToString();
      ExpectVersionMatches(**old, history[version - 1], random, next_id);
    }
  }
}

}  // namespace
}  // namespace tessera::dataset::history_property_test
