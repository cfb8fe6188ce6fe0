#include "support/mixed_rows.h"

#include <arrow/api.h>

#include <random>
#include <stdexcept>
#include <string>

#include "support/checked.h"

namespace tessera::testing {

std::shared_ptr<arrow::RecordBatch> MixedRows(int64_t first_id, int64_t rows, uint32_t seed) {
  std::mt19937 random(seed);
  arrow::Int64Builder ids;
  arrow::StringBuilder categories;
  arrow::DoubleBuilder prices;
  arrow::StringBuilder texts;
  auto tag_values = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder tags(arrow::default_memory_pool(), tag_values);
  auto floats = std::make_shared<arrow::FloatBuilder>();
  arrow::FixedSizeListBuilder vectors(arrow::default_memory_pool(), floats, kMixedDim);
  const char* words[] = {"ab", "cd", "abc", "xyz", "bab", "q"};
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t id = first_id + i;
    Check(ids.Append(id));
    Check(id % 17 == 5 ? categories.AppendNull()
                       : categories.Append("c" + std::to_string(random() % 8)));
    Check(id % 23 == 1 ? prices.AppendNull() : prices.Append(random() % 1000 * 0.5));
    std::string text;
    for (int w = 0; w < 3; ++w) text += std::string(words[random() % 6]) + " ";
    Check(texts.Append(text));
    Check(tags.Append());
    for (uint32_t t = 0, count = random() % 3; t < count; ++t) {
      Check(tag_values->Append("t" + std::to_string(random() % 4)));
    }
    Check(vectors.Append());
    for (int d = 0; d < kMixedDim; ++d) {
      Check(floats->Append(static_cast<float>(random() % 1000) / 100.0f));
    }
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("category", arrow::utf8()),
                     arrow::field("price", arrow::float64()), arrow::field("text", arrow::utf8()),
                     arrow::field("tags", arrow::list(arrow::utf8())),
                     arrow::field("vector", arrow::fixed_size_list(arrow::float32(), kMixedDim))});
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  Check(ids.Finish(&columns[0]));
  Check(categories.Finish(&columns[1]));
  Check(prices.Finish(&columns[2]));
  Check(texts.Finish(&columns[3]));
  Check(tags.Finish(&columns[4]));
  Check(vectors.Finish(&columns[5]));
  return arrow::RecordBatch::Make(schema, rows, columns);
}

}  // namespace tessera::testing
