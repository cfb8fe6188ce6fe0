#include "support/text_corpus.h"

#include <cmath>
#include <set>

#include "tessera/dataset/options.h"
#include "tessera/index/text/analyzer.h"

namespace tessera::testing {

const std::vector<std::string>& TextCorpusWords() {
  static const std::vector<std::string> words = {
      "cat",   "dog",   "bird",  "fish",  "tree",  "river", "stone", "cloud", "green", "blue",
      "red",   "quick", "brown", "fox",   "jump",  "lazy",  "night", "day",   "sun",   "moon",
      "star",  "sky",   "rain",  "snow",  "wind",  "fire",  "water", "earth", "metal", "wood",
      "bread", "milk",  "salt",  "sugar", "honey", "apple", "lemon", "grape", "melon", "peach"};
  return words;
}

std::shared_ptr<arrow::RecordBatch> TextCorpusBatch(int64_t first_id, int64_t rows, uint32_t seed) {
  std::mt19937 random(seed);
  const auto& words = TextCorpusWords();
  std::vector<double> weights;
  for (size_t i = 0; i < words.size(); ++i) weights.push_back(1.0 / static_cast<double>(i + 1));
  std::discrete_distribution<size_t> word(weights.begin(), weights.end());
  arrow::Int64Builder ids, ns;
  arrow::StringBuilder bodies, titles;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t id = first_id + i;
    (void)ids.Append(id);
    (void)ns.Append(id % 10);
    if (id % 17 == 5) {
      (void)bodies.AppendNull();
    } else {
      std::string body;
      const int length = std::uniform_int_distribution<int>(0, 14)(random);
      for (int w = 0; w < length; ++w) body += (w ? " " : "") + words[word(random)];
      (void)bodies.Append(body);
    }
    std::string title = words[word(random)] + " " + words[word(random)];
    (void)titles.Append(title);
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("body", arrow::utf8()),
                     arrow::field("title", arrow::utf8()), arrow::field("n", arrow::int64())});
  return arrow::RecordBatch::Make(schema, rows,
                                  {ids.Finish().ValueOrDie(), bodies.Finish().ValueOrDie(),
                                   titles.Finish().ValueOrDie(), ns.Finish().ValueOrDie()});
}

std::map<uint64_t, double> ReferenceBm25(const dataset::Dataset& data, const std::string& column,
                                         const std::string& query, double k1, double b) {
  auto analyzer = index::text::Analyzer::Make({}).ValueOrDie();
  auto terms_of = [&](std::string_view text) {
    std::vector<std::string> terms;
    analyzer->Analyze(text, 0,
                      [&](const index::text::Token& token) { terms.emplace_back(token.term); });
    return terms;
  };
  dataset::ScanOptions scan;
  scan.columns = {column, dataset::kRowAddressColumn};
  auto table = data.ScanToTable(scan).ValueOrDie()->CombineChunksToBatch().ValueOrDie();
  const auto& values = static_cast<const arrow::StringArray&>(*table->column(0));
  const auto& addresses = static_cast<const arrow::UInt64Array&>(*table->column(1));
  std::vector<std::vector<std::string>> documents;
  double total = 0;
  for (int64_t i = 0; i < table->num_rows(); ++i) {
    documents.push_back(values.IsNull(i) ? std::vector<std::string>{}
                                         : terms_of(values.GetView(i)));
    total += static_cast<double>(documents.back().size());
  }
  const double n = static_cast<double>(documents.size());
  const double average = n == 0 ? 0 : total / n;
  std::map<uint64_t, double> scores;
  const auto query_terms = terms_of(query);
  for (size_t d = 0; d < documents.size(); ++d) {
    double score = 0;
    bool matched = false;
    for (const auto& term : query_terms) {
      double df = 0;
      for (const auto& document : documents) {
        if (std::find(document.begin(), document.end(), term) != document.end()) ++df;
      }
      const double tf =
          static_cast<double>(std::count(documents[d].begin(), documents[d].end(), term));
      if (tf == 0) continue;
      matched = true;
      const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
      score += idf * tf * (k1 + 1) /
               (tf + k1 * (1 - b + b * static_cast<double>(documents[d].size()) / average));
    }
    if (matched) scores[addresses.Value(static_cast<int64_t>(d))] = score;
  }
  return scores;
}

}  // namespace tessera::testing
