// The full-text oracle (query/text_search.h against tests/support/reference_bm25.h) on WordNet
// glosses (tests/support/wordnet_corpus.h):
//  - for every query type, 200+ queries generated deterministically from the corpus: tessera's
//    top-10 rows are the reference's and the scores agree to 1e-5 (relative), and block-max
//    WAND returns exactly what the exhaustive scorer does;
//  - segment invariance: one segment, N segments from random fragment splits, a random
//    unindexed tail, after merging into one segment and after compaction, the same query gives
//    bitwise the same (id, score) list, since the global statistics are the same;
//  - after deletes the statistics change (N, avglen, df over live rows only) and the answers
//    are again the reference's, for one segment and N segments alike.
// The corpus is a 20,000-synset sample spread over the four parts of speech (6,000 with 40
// queries per type under AddressSanitizer); the datasets and the reference are built once per
// suite.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/reference_bm25.h"
#include "support/sanitized_build.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "support/wordnet_corpus.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/query/text_search.h"

namespace tessera::query::text_oracle_test {
namespace {

using testing::ReferenceBm25;
using testing::ReferenceHit;
using testing::Synset;

// Under AddressSanitizer the corpus and the query counts shrink (support/sanitized_build.h): the
// release run is the oracle of record.
constexpr size_t kCorpusSize = testing::kSanitizedBuild ? 6000 : 20000;
constexpr int kFragments = 12;
constexpr int kQueriesPerType = testing::kSanitizedBuild ? 40 : 200;
constexpr int64_t kTopK = 10;
constexpr double kRelativeTolerance = 1e-5;

const index::Params& GlossParams() {
  static const index::Params params = {{"with_position", "true"}};
  return params;
}
const index::Params& WordsParams() {
  static const index::Params params = {{"with_position", "true"}};
  return params;
}

std::string Describe(const TextSearchOptions& options) {
  std::ostringstream out;
  out << TextQueryTypeName(options.type) << " '" << options.text << "' on";
  for (const auto& column : options.columns) out << " " << column.name << "^" << column.boost;
  if (options.operator_and) out << " operator=and";
  if (options.minimum_should_match != 1) out << " msm=" << options.minimum_should_match;
  if (options.type == TextQueryType::kPhrase) out << " slop=" << options.slop;
  if (options.type == TextQueryType::kFuzzy) out << " fuzziness=" << options.fuzziness;
  return out.str();
}

// The words of a text as a reader sees them: maximal runs of ASCII letters and digits.
std::vector<std::string> RawWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// Deterministic queries of every type, from the corpus's own words.
class QueryGenerator {
 public:
  QueryGenerator(const std::vector<Synset>& corpus, uint64_t seed)
      : corpus_(corpus), random_(seed) {
    analyzer_ =
        *index::text::Analyzer::Make(*index::text::ParseAnalyzerOptions(GlossParams(), "INVERTED"));
  }

  std::vector<TextSearchOptions> Make(TextQueryType type, int count) {
    std::vector<TextSearchOptions> queries;
    while (static_cast<int>(queries.size()) < count) {
      TextSearchOptions options = Base(type);
      switch (type) {
        case TextQueryType::kMatch:
          Match(&options);
          break;
        case TextQueryType::kPhrase:
          Phrase(&options);
          break;
        case TextQueryType::kBoolean:
          options.text = BooleanText(0);
          break;
        case TextQueryType::kMultiMatch:
          MultiMatch(&options);
          break;
        case TextQueryType::kPrefix:
          options.text = Prefix();
          break;
        case TextQueryType::kFuzzy:
          Fuzzy(&options);
          break;
      }
      if (options.text.empty()) continue;
      queries.push_back(std::move(options));
    }
    return queries;
  }

 private:
  TextSearchOptions Base(TextQueryType type) const {
    TextSearchOptions options;
    options.type = type;
    options.columns = {{"gloss", 1.0}};
    options.k = kTopK;
    options.with_row_address = true;
    options.projection = {"id"};
    return options;
  }

  size_t Below(size_t n) { return static_cast<size_t>(random_() % n); }

  std::vector<std::string> WordsOf(const std::string& text) {
    std::vector<std::string> words = RawWords(text);
    return words;
  }
  std::string AnyWord() {
    while (true) {
      const auto words = WordsOf(corpus_[Below(corpus_.size())].gloss);
      if (!words.empty()) return words[Below(words.size())];
    }
  }
  size_t DistinctTerms(const std::string& text) {
    std::set<std::string> terms;
    analyzer_->Analyze(text, 0,
                       [&](const index::text::Token& token) { terms.emplace(token.term); });
    return terms.size();
  }

  void Match(TextSearchOptions* options) {
    const size_t kind = Below(20);
    if (kind == 0) {  // stop words only: no rows
      static const std::vector<std::string> stop = {"the", "of the", "a", "and or", "is it to"};
      options->text = stop[Below(stop.size())];
      return;
    }
    if (kind == 1) {  // terms absent from the corpus
      options->text = (Below(2) == 0 ? "zzqxv" : AnyWord() + " qqqwertyx");
      return;
    }
    const size_t terms = 1 + Below(4);
    std::string text;
    for (size_t i = 0; i < terms; ++i) text += (i == 0 ? "" : " ") + AnyWord();
    options->text = text;
    const size_t distinct = DistinctTerms(text);
    if (distinct >= 2 && Below(4) == 0) options->operator_and = true;
    if (distinct >= 2 && !options->operator_and && Below(4) == 0) {
      options->minimum_should_match = 2 + static_cast<int>(Below(distinct - 1));
    }
  }

  // 2-3 consecutive words of a gloss; sometimes one dropped from the middle or two swapped, so
  // that slop 1 and 2 find what slop 0 does not.
  std::string PhraseText() {
    while (true) {
      const auto words = WordsOf(corpus_[Below(corpus_.size())].gloss);
      const size_t length = 2 + Below(2);
      if (words.size() < length + 1) continue;
      const size_t start = Below(words.size() - length);
      std::vector<std::string> phrase(words.begin() + start, words.begin() + start + length + 1);
      const size_t variant = Below(4);
      if (variant == 0) {
        phrase.erase(phrase.begin() + 1);  // a gap
      } else {
        phrase.pop_back();
        if (variant == 1) std::swap(phrase[0], phrase[1]);
      }
      std::string text;
      for (const auto& word : phrase) text += (text.empty() ? "" : " ") + word;
      return text;
    }
  }
  void Phrase(TextSearchOptions* options) {
    options->text = PhraseText();
    options->slop = static_cast<int>(Below(3));
  }

  std::string Prefix() {
    while (true) {
      std::string word = AnyWord();
      if (word.size() < 3) continue;
      return word.substr(0, std::min(word.size(), 3 + Below(3)));
    }
  }

  std::string Edited(std::string word, int edits) {
    static const std::string letters = "abcdefghijklmnopqrstuvwxyz";
    for (int i = 0; i < edits; ++i) {
      const size_t at = Below(word.size());
      switch (Below(4)) {
        case 0:
          word[at] = letters[Below(letters.size())];
          break;
        case 1:
          word.insert(word.begin() + static_cast<std::ptrdiff_t>(at), letters[Below(26)]);
          break;
        case 2:
          if (word.size() > 1) word.erase(at, 1);
          break;
        default:
          if (at + 1 < word.size()) std::swap(word[at], word[at + 1]);
          break;
      }
    }
    return word;
  }
  void Fuzzy(TextSearchOptions* options) {
    std::string word;
    do {
      word = AnyWord();
    } while (word.size() < 4);
    const int edits = 1 + static_cast<int>(Below(2));
    options->text = Edited(word, edits);
    options->fuzziness = Below(3) == 0 ? 2 : edits;
  }

  std::string Clause(int depth) {
    static const std::vector<std::string> occurs = {"", "", "+", "-"};
    const std::string occur = occurs[Below(occurs.size())];
    switch (depth < 1 ? Below(5) : Below(4)) {
      case 0:
        return occur + "\"" + PhraseText() + "\"" +
               (Below(2) == 0 ? "" : "~" + std::to_string(Below(3)));
      case 1:
        return occur + Prefix() + "*";
      case 2: {
        std::string word;
        do {
          word = AnyWord();
        } while (word.size() < 4);
        return occur + Edited(word, 1) + "~" + std::to_string(1 + Below(2));
      }
      case 4:
        return occur + "(" + BooleanText(depth + 1) + ")";
      default:
        return occur + AnyWord();
    }
  }
  std::string BooleanText(int depth) {
    const size_t clauses = 1 + Below(3);
    std::string text;
    for (size_t i = 0; i < clauses; ++i) text += (i == 0 ? "" : " ") + Clause(depth);
    // Words are the common clause: most queries are words with an operator or two.
    if (Below(2) == 0) text += " " + AnyWord();
    return text;
  }

  void MultiMatch(TextSearchOptions* options) {
    const Synset& synset = corpus_[Below(corpus_.size())];
    const std::string source = Below(2) == 0 ? testing::WordsText(synset) : synset.gloss;
    const auto words = WordsOf(source);
    if (words.empty()) return;
    const size_t terms = 1 + Below(std::min<size_t>(3, words.size()));
    std::string text;
    for (size_t i = 0; i < terms; ++i) text += (i == 0 ? "" : " ") + words[Below(words.size())];
    options->text = text;
    static const std::vector<double> boosts = {1.0, 0.5, 2.0, 3.0};
    options->columns = {{"words", boosts[Below(boosts.size())]},
                        {"gloss", boosts[Below(boosts.size())]}};
    if (DistinctTerms(text) >= 2 && Below(5) == 0) options->operator_and = true;
  }

  const std::vector<Synset>& corpus_;
  std::mt19937_64 random_;
  std::unique_ptr<index::text::Analyzer> analyzer_;
};

// One answer: (row address, id, score) per row.
struct Row {
  uint64_t row_address = 0;
  int64_t id = 0;
  float score = 0;
  bool operator==(const Row&) const = default;
};

arrow::Result<std::vector<Row>> Rows(const arrow::Table& table) {
  ARROW_ASSIGN_OR_RAISE(auto combined, table.CombineChunks());
  std::vector<Row> rows;
  if (combined->num_rows() == 0) return rows;
  const auto address = combined->GetColumnByName(dataset::kRowAddressColumn);
  const auto id = combined->GetColumnByName("id");
  const auto score = combined->GetColumnByName(kScoreColumn);
  if (address == nullptr || id == nullptr || score == nullptr) {
    return arrow::Status::Invalid("result lacks _rowaddr, id or _score: ",
                                  combined->schema()->ToString());
  }
  const auto& addresses = static_cast<const arrow::UInt64Array&>(*address->chunk(0));
  const auto& ids = static_cast<const arrow::Int64Array&>(*id->chunk(0));
  const auto& scores = static_cast<const arrow::FloatArray&>(*score->chunk(0));
  for (int64_t i = 0; i < combined->num_rows(); ++i) {
    rows.push_back({addresses.Value(i), ids.Value(i), scores.Value(i)});
  }
  return rows;
}

std::string Show(const std::vector<Row>& rows) {
  std::ostringstream out;
  for (const auto& row : rows) {
    out << " (id " << row.id << " @" << std::hex << row.row_address << std::dec << " " << row.score
        << ")";
  }
  return out.str();
}
std::string Show(const std::vector<ReferenceHit>& hits, size_t count) {
  std::ostringstream out;
  for (size_t i = 0; i < std::min(count, hits.size()); ++i) {
    out << " (@" << std::hex << hits[i].row_address << std::dec << " " << hits[i].score << ")";
  }
  return out.str();
}

// A version of the corpus indexed in some layout, with the answers it gave.
struct Layout {
  std::string name;
  std::shared_ptr<dataset::Dataset> dataset;
};

class TextOracle : public ::testing::TestWithParam<TextQueryType> {
 protected:
  static void SetUpTestSuite() { setup_ = new arrow::Status(Prepare()); }
  static void TearDownTestSuite() {
    delete setup_;
    delete state_;
    setup_ = nullptr;
    state_ = nullptr;
  }

  struct State {
    testing::TempDirectory directory;
    std::vector<Synset> corpus;
    std::map<std::string, std::shared_ptr<dataset::Dataset>> layouts;
    std::unique_ptr<ReferenceBm25> reference;          // of "one segment" (all rows live)
    std::unique_ptr<ReferenceBm25> deleted_reference;  // of "one segment, deletes"
    std::map<TextQueryType, std::vector<TextSearchOptions>> queries;
    std::map<std::pair<const ReferenceBm25*, const TextSearchOptions*>,
             std::vector<std::vector<ReferenceHit>>>
        answers;
  };

  static arrow::Status Index(std::shared_ptr<dataset::Dataset>* dataset) {
    ARROW_ASSIGN_OR_RAISE(*dataset, index::CreateIndex(**dataset, GlossSpec()));
    ARROW_ASSIGN_OR_RAISE(*dataset, index::CreateIndex(**dataset, WordsSpec()));
    return arrow::Status::OK();
  }
  static index::IndexSpec GlossSpec() { return {"gloss_fts", "gloss", "INVERTED", GlossParams()}; }
  static index::IndexSpec WordsSpec() { return {"words_fts", "words", "INVERTED", WordsParams()}; }

  // Both indexes as segments over random groups of fragments (each group its own segment).
  static arrow::Status IndexInRandomSegments(std::shared_ptr<dataset::Dataset>* dataset,
                                             std::mt19937_64& random) {
    std::vector<uint32_t> fragments;
    for (const auto& fragment : (*dataset)->manifest().fragments()) {
      fragments.push_back(static_cast<uint32_t>(fragment.id()));
    }
    std::shuffle(fragments.begin(), fragments.end(), random);
    for (const auto& spec : {GlossSpec(), WordsSpec()}) {
      std::vector<format::SegmentMeta> segments;
      size_t start = 0;
      while (start < fragments.size()) {
        const size_t size = std::min<size_t>(fragments.size() - start, 1 + random() % 4);
        std::vector<uint32_t> group(fragments.begin() + static_cast<std::ptrdiff_t>(start),
                                    fragments.begin() + static_cast<std::ptrdiff_t>(start + size));
        start += size;
        ARROW_ASSIGN_OR_RAISE(auto segment, index::BuildSegment(**dataset, spec, group, nullptr));
        segments.push_back(std::move(segment));
      }
      ARROW_ASSIGN_OR_RAISE(*dataset, index::CommitSegments(**dataset, spec, segments));
    }
    return arrow::Status::OK();
  }

  static arrow::Status Prepare() {
    ARROW_ASSIGN_OR_RAISE(const auto* wordnet, testing::WordNet());
    state_ = new State();
    State& state = *state_;
    state.corpus = testing::SpreadSample(*wordnet, kCorpusSize);
    std::mt19937_64 random(13);
    auto path = [&](const std::string& name) { return state.directory.Child(name); };

    // One segment.
    ARROW_ASSIGN_OR_RAISE(auto one,
                          testing::CreateWordNetDataset(path("one"), state.corpus, kFragments));
    ARROW_RETURN_NOT_OK(Index(&one));
    state.layouts["one segment"] = one;

    // N segments from random fragment splits.
    ARROW_ASSIGN_OR_RAISE(auto split,
                          testing::CreateWordNetDataset(path("split"), state.corpus, kFragments));
    ARROW_RETURN_NOT_OK(IndexInRandomSegments(&split, random));
    state.layouts["N segments"] = split;

    // An unindexed tail: a random share of the rows appended after the index was built.
    // (small: every query analyzes the tail anew, and ASan runs are slow)
    const size_t indexed = state.corpus.size() - 500 - random() % 1500;
    const std::vector<Synset> head(state.corpus.begin(),
                                   state.corpus.begin() + static_cast<std::ptrdiff_t>(indexed));
    const std::vector<Synset> tail(state.corpus.begin() + static_cast<std::ptrdiff_t>(indexed),
                                   state.corpus.end());
    ARROW_ASSIGN_OR_RAISE(auto tailed, testing::CreateWordNetDataset(path("tail"), head, 6));
    ARROW_RETURN_NOT_OK(IndexInRandomSegments(&tailed, random));
    ARROW_ASSIGN_OR_RAISE(tailed, testing::AppendWordNet(*tailed, tail, 1 + random() % 5));
    state.layouts["unindexed tail"] = tailed;

    // The tail indexed as a delta segment, then every segment merged into one.
    index::OptimizeOptions merge_all;
    ARROW_ASSIGN_OR_RAISE(merge_all.merge, index::MergePolicy::Parse("1"));
    ARROW_ASSIGN_OR_RAISE(auto merged, index::OptimizeIndexes(*tailed, merge_all));
    state.layouts["merged"] = merged.dataset;

    // Compaction rewrites the small fragments at the end (new row addresses, unindexed until
    // optimize); the large ones stay, indexed.
    const size_t large = state.corpus.size() - 1200;
    ARROW_ASSIGN_OR_RAISE(
        auto to_compact,
        testing::CreateWordNetDataset(
            path("compact"),
            std::vector<Synset>(state.corpus.begin(),
                                state.corpus.begin() + static_cast<std::ptrdiff_t>(large)),
            kFragments));
    ARROW_ASSIGN_OR_RAISE(
        to_compact,
        testing::AppendWordNet(
            *to_compact,
            std::vector<Synset>(state.corpus.begin() + static_cast<std::ptrdiff_t>(large),
                                state.corpus.end()),
            6));
    ARROW_RETURN_NOT_OK(IndexInRandomSegments(&to_compact, random));
    dataset::CompactionOptions compaction;
    compaction.target_rows_per_fragment = 1000;
    ARROW_ASSIGN_OR_RAISE(auto compacted, dataset::Compact(to_compact, compaction));
    if (compacted.plan.fragments() < 2) {
      return arrow::Status::Invalid("the compaction rewrote ", compacted.plan.fragments(),
                                    " fragments");
    }
    state.layouts["compacted"] = compacted.dataset;
    index::OptimizeOptions optimize;
    ARROW_ASSIGN_OR_RAISE(auto reindexed, index::OptimizeIndexes(*compacted.dataset, optimize));
    state.layouts["compacted, optimized"] = reindexed.dataset;

    // Deletes: every fifth synset and a random range.
    const int64_t first = static_cast<int64_t>(random() % state.corpus.size());
    const std::string deleted = "id % 5 = 2 OR (id >= " + std::to_string(first) + " AND id < " +
                                std::to_string(first + 700) + ")";
    ARROW_ASSIGN_OR_RAISE(auto one_deleted, one->Delete(deleted));
    ARROW_ASSIGN_OR_RAISE(auto split_deleted, split->Delete(deleted));
    ARROW_ASSIGN_OR_RAISE(auto tail_deleted, tailed->Delete(deleted));
    state.layouts["one segment, deletes"] = one_deleted;
    state.layouts["N segments, deletes"] = split_deleted;
    state.layouts["unindexed tail, deletes"] = tail_deleted;

    ARROW_ASSIGN_OR_RAISE(state.reference,
                          ReferenceBm25::Make(*one, {"gloss", "words"}, GlossParams()));
    ARROW_ASSIGN_OR_RAISE(state.deleted_reference,
                          ReferenceBm25::Make(*one_deleted, {"gloss", "words"}, GlossParams()));

    QueryGenerator generator(state.corpus, 42);
    for (auto type : {TextQueryType::kMatch, TextQueryType::kPhrase, TextQueryType::kBoolean,
                      TextQueryType::kMultiMatch, TextQueryType::kPrefix, TextQueryType::kFuzzy}) {
      state.queries[type] = generator.Make(type, kQueriesPerType);
    }
    return arrow::Status::OK();
  }

  // Tessera's answer, checked to be the exhaustive scorer's exactly.
  static void Search(const dataset::Dataset& dataset, const TextSearchOptions& options,
                     std::vector<Row>* rows) {
    ASSERT_OK_AND_ASSIGN(auto table, TextSearch(dataset, options));
    ASSERT_OK_AND_ASSIGN(*rows, Rows(*table));
    TextSearchOptions exhaustive = options;
    exhaustive.exhaustive = true;
    ASSERT_OK_AND_ASSIGN(auto exhaustive_table, TextSearch(dataset, exhaustive));
    ASSERT_OK_AND_ASSIGN(auto exhaustive_rows, Rows(*exhaustive_table));
    ASSERT_EQ(*rows, exhaustive_rows)
        << "WAND:" << Show(*rows) << "\nexhaustive:" << Show(exhaustive_rows);
  }

  // The top k equals the reference's: same length, each score within the tolerance of the
  // reference's at that rank, and the same row, unless the reference scores tessera's row the
  // same within 1e-9 (a tie whose order the last bits of a sum decide).
  static void ExpectReference(const std::vector<Row>& rows, const ReferenceBm25& reference,
                              const TextSearchOptions& options) {
    // The reference's answers, computed once per (reference, query) for all layouts.
    auto& cached = state_->answers[{&reference, &options}];
    if (cached.empty()) {
      ASSERT_OK_AND_ASSIGN(auto answer, reference.Search(options));
      cached.push_back(std::move(answer));
    }
    const std::vector<ReferenceHit>& hits = cached[0];
    const size_t expected = std::min<size_t>(hits.size(), static_cast<size_t>(options.k));
    ASSERT_EQ(rows.size(), expected)
        << "tessera:" << Show(rows) << "\nreference:" << Show(hits, expected);
    std::map<uint64_t, double> reference_scores;
    for (const auto& hit : hits) reference_scores[hit.row_address] = hit.score;
    for (size_t i = 0; i < rows.size(); ++i) {
      const double want = hits[i].score;
      ASSERT_LE(std::abs(rows[i].score - want),
                kRelativeTolerance * std::max(1e-12, std::abs(want)))
          << "rank " << i << "\ntessera:" << Show(rows) << "\nreference:" << Show(hits, expected);
      if (rows[i].row_address == hits[i].row_address) continue;
      const auto found = reference_scores.find(rows[i].row_address);
      ASSERT_TRUE(found != reference_scores.end() &&
                  std::abs(found->second - want) <= 1e-9 * std::abs(want))
          << "rank " << i << " is not the reference's row\ntessera:" << Show(rows)
          << "\nreference:" << Show(hits, expected);
    }
  }

  void CheckLayoutAgainstReference(const std::string& layout, const ReferenceBm25& reference,
                                   int queries) {
    ASSERT_OK(*setup_);
    const auto& dataset = *state_->layouts.at(layout);
    const auto& all = state_->queries.at(GetParam());
    int answered = 0;
    for (int i = 0; i < queries && i < static_cast<int>(all.size()); ++i) {
      SCOPED_TRACE(layout + ": " + Describe(all[i]));
      std::vector<Row> rows;
      ASSERT_NO_FATAL_FAILURE(Search(dataset, all[i], &rows));
      ASSERT_NO_FATAL_FAILURE(ExpectReference(rows, reference, all[i]));
      if (!rows.empty()) ++answered;
    }
    // The generator's queries mostly find something: the comparison is not vacuous.
    EXPECT_GT(answered, queries / 2);
  }

  // Every layout of `layouts` answers bitwise as `base` does, by (id, score).
  void CheckLayoutsAgree(const std::string& base, const std::vector<std::string>& layouts,
                         int queries) {
    ASSERT_OK(*setup_);
    const auto& all = state_->queries.at(GetParam());
    for (int i = 0; i < queries && i < static_cast<int>(all.size()); ++i) {
      SCOPED_TRACE(Describe(all[i]));
      std::vector<Row> expected;
      ASSERT_NO_FATAL_FAILURE(Search(*state_->layouts.at(base), all[i], &expected));
      for (const auto& layout : layouts) {
        SCOPED_TRACE(layout);
        std::vector<Row> rows;
        ASSERT_NO_FATAL_FAILURE(Search(*state_->layouts.at(layout), all[i], &rows));
        ASSERT_EQ(rows.size(), expected.size()) << base << ":" << Show(expected) << "\n"
                                                << layout << ":" << Show(rows);
        for (size_t r = 0; r < rows.size(); ++r) {
          ASSERT_EQ(rows[r].id, expected[r].id) << base << ":" << Show(expected) << "\n"
                                                << layout << ":" << Show(rows);
          // Bitwise: the same statistics give the same double, rounded the same way.
          ASSERT_EQ(rows[r].score, expected[r].score) << base << ":" << Show(expected) << "\n"
                                                      << layout << ":" << Show(rows);
        }
      }
    }
  }

  static inline arrow::Status* setup_ = nullptr;
  static inline State* state_ = nullptr;
};

TEST_P(TextOracle, OneSegmentEqualsTheReference) {
  ASSERT_OK(*setup_);
  CheckLayoutAgainstReference("one segment", *state_->reference, kQueriesPerType);
}

TEST_P(TextOracle, RandomSegmentSplitsEqualTheReference) {
  ASSERT_OK(*setup_);
  CheckLayoutAgainstReference("N segments", *state_->reference, kQueriesPerType / 2);
}

TEST_P(TextOracle, AfterDeletesEqualsTheReferenceOverLiveRows) {
  ASSERT_OK(*setup_);
  CheckLayoutAgainstReference("one segment, deletes", *state_->deleted_reference,
                              kQueriesPerType / 4);
}

TEST_P(TextOracle, EveryLayoutScoresBitwiseTheSame) {
  ASSERT_OK(*setup_);
  // The layouts are what they claim to be.
  auto gloss_index = [&](const std::string& layout) {
    return *index::DescribeIndex(*state_->layouts.at(layout), "gloss_fts");
  };
  EXPECT_EQ(gloss_index("one segment").num_segments, 1);
  EXPECT_GT(gloss_index("N segments").num_segments, 2);
  EXPECT_GT(gloss_index("unindexed tail").unindexed_fragments, 0u);
  EXPECT_GT(gloss_index("unindexed tail").num_segments, 1);
  EXPECT_EQ(gloss_index("merged").num_segments, 1);
  EXPECT_EQ(gloss_index("merged").unindexed_fragments, 0u);
  EXPECT_GT(gloss_index("compacted").unindexed_fragments, 0u);
  EXPECT_EQ(gloss_index("compacted, optimized").unindexed_fragments, 0u);
  CheckLayoutsAgree("one segment",
                    {"N segments", "unindexed tail", "merged", "compacted", "compacted, optimized"},
                    kQueriesPerType / 10);
}

TEST_P(TextOracle, EveryLayoutAfterDeletesScoresBitwiseTheSame) {
  CheckLayoutsAgree("one segment, deletes", {"N segments, deletes", "unindexed tail, deletes"},
                    kQueriesPerType / 5);
}

TEST(WordNetCorpus, TheCorpusFailsNamingThePackageWhenMissing) {
  const auto missing = testing::ReadWordNet("/nonexistent/wordnet");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(testing::kWordNetPackage), std::string::npos)
      << missing.status().ToString();
  ASSERT_OK_AND_ASSIGN(const auto* corpus, testing::WordNet());
  EXPECT_GT(corpus->size(), 100000u);  // 117,659 synsets in WordNet 3.0
  EXPECT_EQ((*corpus)[0].words, std::vector<std::string>{"entity"});
  EXPECT_TRUE((*corpus)[0].gloss.starts_with("that which is perceived or known"));
  for (const auto& synset : *corpus) {
    ASSERT_FALSE(synset.words.empty()) << synset.id;
    ASSERT_FALSE(synset.gloss.empty()) << synset.id;
  }
}

std::string QueryTypeTestName(const ::testing::TestParamInfo<TextQueryType>& info) {
  static const char* const names[] = {"Match",      "Phrase", "Boolean",
                                      "MultiMatch", "Prefix", "Fuzzy"};
  return names[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(QueryTypes, TextOracle,
                         ::testing::Values(TextQueryType::kMatch, TextQueryType::kPhrase,
                                           TextQueryType::kBoolean, TextQueryType::kMultiMatch,
                                           TextQueryType::kPrefix, TextQueryType::kFuzzy),
                         QueryTypeTestName);

}  // namespace
}  // namespace tessera::query::text_oracle_test
