#include "support/wordnet_corpus.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/checked.h"
#include "support/indexed_dataset.h"
#include "tessera/status.h"

namespace tessera::testing {

namespace {

// "word(a)" → "word": the syntactic markers of adjectives (WordNet's wndb(5)).
std::string WithoutMarker(std::string lemma) {
  for (const char* marker : {"(a)", "(p)", "(ip)"}) {
    const std::string text = marker;
    if (lemma.size() > text.size() && lemma.ends_with(text)) {
      lemma.resize(lemma.size() - text.size());
    }
  }
  return lemma;
}

// One data line: "offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] ... | gloss".
bool ParseLine(const std::string& line, Synset* synset) {
  const size_t bar = line.find(" | ");
  if (bar == std::string::npos) return false;
  std::istringstream fields(line.substr(0, bar));
  std::string offset, lex_filenum, type, count_hex;
  if (!(fields >> offset >> lex_filenum >> type >> count_hex)) return false;
  int count = 0;
  try {
    count = std::stoi(count_hex, nullptr, 16);
  } catch (...) {
    return false;
  }
  if (count < 1) return false;
  synset->words.clear();
  for (int i = 0; i < count; ++i) {
    std::string word, lex_id;
    if (!(fields >> word >> lex_id)) return false;
    synset->words.push_back(WithoutMarker(word));
  }
  std::string gloss = line.substr(bar + 3);
  while (!gloss.empty() && (gloss.back() == ' ' || gloss.back() == '\r')) gloss.pop_back();
  if (gloss.empty()) return false;
  synset->gloss = std::move(gloss);
  return true;
}

}  // namespace

arrow::Result<std::vector<Synset>> ReadWordNet(const std::string& directory) {
  std::vector<Synset> synsets;
  for (const char* part : {"noun", "verb", "adj", "adv"}) {
    const std::string path = directory + "/data." + part;
    std::ifstream file(path);
    if (!file) {
      return NotFound("WordNet data file ", path, " is missing: install the Debian package ",
                      kWordNetPackage, " (scripts/bootstrap.sh does)");
    }
    std::string line;
    int64_t number = 0;
    while (std::getline(file, line)) {
      ++number;
      if (line.starts_with("  ")) continue;  // the license header
      Synset synset;
      if (!ParseLine(line, &synset)) {
        return Corrupt("WordNet data file ", path, " line ", number, " is not a synset line");
      }
      synset.id = static_cast<int64_t>(synsets.size());
      synsets.push_back(std::move(synset));
    }
  }
  return synsets;
}

arrow::Result<const std::vector<Synset>*> WordNet() {
  static const arrow::Result<std::vector<Synset>> corpus = ReadWordNet();
  if (!corpus.ok()) return corpus.status();
  return &*corpus;
}

std::vector<Synset> SpreadSample(const std::vector<Synset>& synsets, size_t count) {
  std::vector<Synset> sample;
  count = std::min(count, synsets.size());
  sample.reserve(count);
  for (size_t i = 0; i < count; ++i) sample.push_back(synsets[i * synsets.size() / count]);
  return sample;
}

std::string WordsText(const Synset& synset) {
  std::string text;
  for (const auto& word : synset.words) {
    if (!text.empty()) text += ' ';
    text += word;
  }
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

std::shared_ptr<arrow::Schema> WordNetSchema() {
  return arrow::schema({arrow::field("id", arrow::int64()), arrow::field("words", arrow::utf8()),
                        arrow::field("gloss", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatch> WordNetBatch(const std::vector<Synset>& synsets) {
  arrow::Int64Builder ids;
  arrow::StringBuilder words;
  arrow::StringBuilder glosses;
  for (const auto& synset : synsets) {
    Check(ids.Append(synset.id));
    Check(words.Append(WordsText(synset)));
    Check(glosses.Append(synset.gloss));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(3);
  Check(ids.Finish(&columns[0]));
  Check(words.Finish(&columns[1]));
  Check(glosses.Finish(&columns[2]));
  return arrow::RecordBatch::Make(WordNetSchema(), static_cast<int64_t>(synsets.size()), columns);
}

namespace {
dataset::WriteOptions FragmentsFor(size_t rows, int fragments) {
  const uint64_t per_fragment =
      std::max<uint64_t>(1, (rows + static_cast<uint64_t>(std::max(fragments, 1)) - 1) /
                                static_cast<uint64_t>(std::max(fragments, 1)));
  return FragmentsOf(per_fragment, std::min<uint64_t>(per_fragment, 4096));
}
}  // namespace

arrow::Result<std::shared_ptr<dataset::Dataset>> CreateWordNetDataset(
    const std::string& uri, const std::vector<Synset>& synsets, int fragments) {
  return dataset::Dataset::Create(uri, *arrow::RecordBatchReader::Make({WordNetBatch(synsets)}),
                                  FragmentsFor(synsets.size(), fragments));
}

arrow::Result<std::shared_ptr<dataset::Dataset>> AppendWordNet(const dataset::Dataset& dataset,
                                                               const std::vector<Synset>& synsets,
                                                               int fragments) {
  return dataset.Append(*arrow::RecordBatchReader::Make({WordNetBatch(synsets)}),
                        FragmentsFor(synsets.size(), fragments));
}

}  // namespace tessera::testing
