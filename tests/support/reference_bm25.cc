#include "support/reference_bm25.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "tessera/status.h"

namespace tessera::testing {

using index::text::Token;

arrow::Result<std::unique_ptr<ReferenceBm25>> ReferenceBm25::Make(
    const dataset::Dataset& dataset, const std::vector<std::string>& columns,
    const index::Params& params) {
  std::unique_ptr<ReferenceBm25> reference(new ReferenceBm25());
  ARROW_ASSIGN_OR_RAISE(reference->analyzer_options_,
                        index::text::ParseAnalyzerOptions(params, "INVERTED"));
  ARROW_ASSIGN_OR_RAISE(reference->analyzer_,
                        index::text::Analyzer::Make(reference->analyzer_options_));
  dataset::ScanOptions scan;
  scan.columns = columns;
  scan.with_row_address = true;
  ARROW_ASSIGN_OR_RAISE(auto table, dataset.ScanToTable(scan));
  ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
  const auto& addresses =
      static_cast<const arrow::UInt64Array&>(*table->GetColumnByName("_rowaddr")->chunk(0));
  for (int64_t row = 0; row < addresses.length(); ++row) {
    reference->row_addresses_.push_back(addresses.Value(row));
  }
  for (const auto& name : columns) {
    Column& column = reference->columns_[name];
    const auto chunked = table->GetColumnByName(name);
    if (chunked == nullptr || chunked->type()->id() != arrow::Type::STRING) {
      return InvalidArgument("reference BM25: column '", name, "' is not a string column");
    }
    const auto& values = static_cast<const arrow::StringArray&>(*chunked->chunk(0));
    for (int64_t row = 0; row < values.length(); ++row) {
      const auto document = static_cast<uint32_t>(row);
      uint32_t length = 0;
      if (!values.IsNull(row)) {
        reference->analyzer_->Analyze(values.GetView(row), 0, [&](const Token& token) {
          column.postings[std::string(token.term)][document].push_back(token.position);
          ++length;
        });
      }
      column.lengths.push_back(length);
      column.total_length += length;
    }
  }
  return reference;
}

std::map<std::string, uint32_t> ReferenceBm25::Dictionary(const std::string& name) const {
  std::map<std::string, uint32_t> dictionary;
  for (const auto& [term, documents] : columns_.at(name).postings) {
    dictionary[term] = static_cast<uint32_t>(documents.size());
  }
  return dictionary;
}

int ReferenceBm25::EditDistance(const std::string& a, const std::string& b) {
  // d(i, j): the distance between the first i bytes of a and the first j bytes of b.
  const size_t columns = b.size() + 1;
  thread_local std::vector<int> table;
  table.assign((a.size() + 1) * columns, 0);
  auto d = [&](size_t i, size_t j) -> int& { return table[i * columns + j]; };
  for (size_t i = 0; i <= a.size(); ++i) d(i, 0) = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d(0, j) = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d(i, j) = std::min({d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d(i, j) = std::min(d(i, j), d(i - 2, j - 2) + 1);
      }
    }
  }
  return d(a.size(), b.size());
}

std::vector<std::string> ReferenceBm25::AnalyzeTerms(const std::string& text) const {
  std::vector<std::string> terms;
  analyzer_->Analyze(text, 0, [&](const Token& token) { terms.emplace_back(token.term); });
  return terms;
}

std::vector<std::pair<std::string, uint32_t>> ReferenceBm25::AnalyzeTokens(
    const std::string& text) const {
  std::vector<std::pair<std::string, uint32_t>> tokens;
  analyzer_->Analyze(text, 0, [&](const Token& token) {
    tokens.emplace_back(std::string(token.term), token.position);
  });
  return tokens;
}

std::string ReferenceBm25::Normalize(const std::string& word) const {
  return analyzer_->NormalizeWord(word);
}

// idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)), N and df over live documents.
double ReferenceBm25::Idf(const Column& column, const std::string& term) const {
  const double n = static_cast<double>(column.lengths.size());
  const auto found = column.postings.find(term);
  const double df = found == column.postings.end() ? 0 : static_cast<double>(found->second.size());
  return std::log(1 + (n - df + 0.5) / (df + 0.5));
}

// tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), without the IDF.
double ReferenceBm25::TermScore(const Column& column, const std::string& /*term*/, double frequency,
                                uint32_t document, double k1, double b) const {
  const double average =
      static_cast<double>(column.total_length) / static_cast<double>(column.lengths.size());
  const double length = column.lengths[document];
  const double norm = average > 0 ? length / average : 0;
  return frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * norm));
}

ReferenceBm25::Scores ReferenceBm25::Match(const Column& column,
                                           const std::vector<std::string>& terms, bool operator_and,
                                           int minimum_should_match, double k1, double b) const {
  Scores scores;
  const std::set<std::string> distinct(terms.begin(), terms.end());
  if (distinct.empty()) return scores;
  const size_t needed =
      operator_and ? distinct.size() : static_cast<size_t>(std::max(1, minimum_should_match));
  std::map<uint32_t, size_t> held;  // document → distinct query terms it holds
  for (const auto& term : distinct) {
    const auto found = column.postings.find(term);
    if (found == column.postings.end()) continue;
    for (const auto& [document, positions] : found->second) ++held[document];
  }
  for (const auto& [document, count] : held) {
    if (count < needed) continue;
    double score = 0;
    for (const auto& term : terms) {  // a repeated query term counts each time
      const auto found = column.postings.find(term);
      if (found == column.postings.end()) continue;
      const auto posting = found->second.find(document);
      if (posting == found->second.end()) continue;
      score +=
          Idf(column, term) *
          TermScore(column, term, static_cast<double>(posting->second.size()), document, k1, b);
    }
    scores[document] = score;
  }
  return scores;
}

// The phrase frequency with Lucene's slop, by brute force: the number of positions p_0 of the
// first term for which every other term i has a document position p_i, no position used twice,
// such that the offsets p_i − q_i (q: the terms' query positions) spread over at most `slop`.
ReferenceBm25::Scores ReferenceBm25::Phrase(
    const Column& column, const std::vector<std::pair<std::string, uint32_t>>& terms, int slop,
    double k1, double b) const {
  Scores scores;
  if (terms.empty()) return scores;
  std::vector<const std::map<uint32_t, std::vector<uint32_t>>*> lists;
  for (const auto& [term, position] : terms) {
    const auto found = column.postings.find(term);
    if (found == column.postings.end()) return scores;
    lists.push_back(&found->second);
  }
  double idf = 0;
  for (const auto& [term, position] : terms) idf += Idf(column, term);
  for (const auto& [document, first_positions] : *lists[0]) {
    std::vector<const std::vector<uint32_t>*> positions;
    for (const auto* list : lists) {
      const auto found = list->find(document);
      if (found == list->end()) break;
      positions.push_back(&found->second);
    }
    if (positions.size() != terms.size()) continue;
    int frequency = 0;
    std::vector<uint32_t> chosen;
    // Tries every assignment of positions to terms 1.., given the offsets' range so far.
    std::function<bool(size_t, int64_t, int64_t)> assign = [&](size_t i, int64_t low,
                                                               int64_t high) {
      if (high - low > slop) return false;
      if (i == terms.size()) return true;
      for (uint32_t p : *positions[i]) {
        if (std::find(chosen.begin(), chosen.end(), p) != chosen.end()) continue;
        const int64_t offset = static_cast<int64_t>(p) - terms[i].second;
        chosen.push_back(p);
        const bool fits = assign(i + 1, std::min(low, offset), std::max(high, offset));
        chosen.pop_back();
        if (fits) return true;
      }
      return false;
    };
    for (uint32_t first : first_positions) {
      const int64_t offset = static_cast<int64_t>(first) - terms[0].second;
      chosen.assign(1, first);
      if (assign(1, offset, offset)) ++frequency;
    }
    if (frequency > 0) {
      scores[document] = idf * TermScore(column, terms[0].first, frequency, document, k1, b);
    }
  }
  return scores;
}

// The most frequent terms starting with `prefix` (ties in term order).
std::vector<std::string> ReferenceBm25::PrefixTerms(const Column& column, const std::string& prefix,
                                                    int max_expansions) const {
  std::vector<std::pair<uint32_t, std::string>> candidates;
  for (auto at = column.postings.lower_bound(prefix);
       at != column.postings.end() && at->first.starts_with(prefix); ++at) {
    candidates.emplace_back(static_cast<uint32_t>(at->second.size()), at->first);
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  std::vector<std::string> terms;
  for (const auto& [df, term] : candidates) {
    if (static_cast<int>(terms.size()) >= max_expansions) break;
    terms.push_back(term);
  }
  return terms;
}

// Terms within `fuzziness` edits, closest first, then most frequent, then in term order.
std::vector<std::string> ReferenceBm25::FuzzyTerms(const Column& column, const std::string& word,
                                                   int fuzziness, int max_expansions) const {
  std::vector<std::tuple<int, uint32_t, std::string>> candidates;
  for (const auto& [term, documents] : column.postings) {
    // Each edit changes the length by one at most: a shortcut, not a different rule.
    const int length_difference =
        std::abs(static_cast<int>(term.size()) - static_cast<int>(word.size()));
    if (length_difference > fuzziness) continue;
    const int distance = EditDistance(word, term);
    if (distance <= fuzziness) {
      candidates.emplace_back(distance, static_cast<uint32_t>(documents.size()), term);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto& x, const auto& y) {
    if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) < std::get<0>(y);
    if (std::get<1>(x) != std::get<1>(y)) return std::get<1>(x) > std::get<1>(y);
    return std::get<2>(x) < std::get<2>(y);
  });
  std::vector<std::string> terms;
  for (const auto& candidate : candidates) {
    if (static_cast<int>(terms.size()) >= max_expansions) break;
    terms.push_back(std::get<2>(candidate));
  }
  return terms;
}

// --- the boolean query language ---

struct ReferenceBm25::BooleanNode {
  enum class Kind { kWord, kPhrase, kPrefix, kFuzzy, kGroup };
  enum class Occur { kShould, kMust, kMustNot };
  Kind kind = Kind::kGroup;
  Occur occur = Occur::kShould;
  std::string text;                  // word, phrase text, prefix or fuzzy word
  int number = 0;                    // phrase slop, fuzziness
  std::vector<BooleanNode> clauses;  // kGroup
};

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

struct ReferenceBm25::Context {
  const std::string& text;
  size_t at = 0;

  // clauses until the end or a ')' (not consumed)
  arrow::Status Clauses(std::vector<BooleanNode>* clauses) {
    while (true) {
      while (at < text.size() && IsBlank(text[at])) ++at;
      if (at >= text.size() || text[at] == ')') return arrow::Status::OK();
      BooleanNode node;
      if (text[at] == '+') {
        node.occur = BooleanNode::Occur::kMust;
        ++at;
      } else if (text[at] == '-') {
        node.occur = BooleanNode::Occur::kMustNot;
        ++at;
      }
      if (at < text.size() && text[at] == '"') {
        const size_t close = text.find('"', at + 1);
        if (close == std::string::npos) {
          return InvalidArgument("reference: unterminated quote in '", text, "'");
        }
        node.kind = BooleanNode::Kind::kPhrase;
        node.text = text.substr(at + 1, close - at - 1);
        at = close + 1;
        if (at < text.size() && text[at] == '~') {
          ++at;
          size_t digits = at;
          while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
            ++digits;
          }
          node.number = std::stoi(text.substr(at, digits - at));
          at = digits;
        }
      } else if (at < text.size() && text[at] == '(') {
        ++at;
        node.kind = BooleanNode::Kind::kGroup;
        ARROW_RETURN_NOT_OK(Clauses(&node.clauses));
        if (at >= text.size()) {
          return InvalidArgument("reference: unterminated parenthesis in '", text, "'");
        }
        ++at;  // ')'
      } else {
        size_t end = at;
        while (end < text.size() && !IsBlank(text[end]) && text[end] != '(' && text[end] != ')' &&
               text[end] != '"') {
          ++end;
        }
        std::string word = text.substr(at, end - at);
        at = end;
        node.kind = BooleanNode::Kind::kWord;
        if (word.ends_with("*")) {
          node.kind = BooleanNode::Kind::kPrefix;
          word.pop_back();
        } else if (const size_t tilde = word.rfind('~'); tilde != std::string::npos) {
          node.kind = BooleanNode::Kind::kFuzzy;
          node.number = tilde + 1 < word.size() ? std::stoi(word.substr(tilde + 1)) : 1;
          word.resize(tilde);
        }
        node.text = word;
      }
      clauses->push_back(std::move(node));
    }
  }
};

// nullopt for a clause the analyzer leaves nothing of (stop words only, an empty prefix, a
// group of such clauses): the clause is dropped, as if it were not written.
std::optional<ReferenceBm25::Scores> ReferenceBm25::Evaluate(const Column& column,
                                                             const BooleanNode& node, double k1,
                                                             double b, int max_expansions) const {
  switch (node.kind) {
    case BooleanNode::Kind::kWord: {
      const auto terms = AnalyzeTerms(node.text);
      if (terms.empty()) return std::nullopt;
      return Match(column, terms, false, 1, k1, b);
    }
    case BooleanNode::Kind::kPhrase: {
      const auto tokens = AnalyzeTokens(node.text);
      if (tokens.empty()) return std::nullopt;
      return Phrase(column, tokens, node.number, k1, b);
    }
    case BooleanNode::Kind::kPrefix:
    case BooleanNode::Kind::kFuzzy: {
      const std::string word = Normalize(node.text);
      if (word.empty()) return std::nullopt;
      return Match(column,
                   node.kind == BooleanNode::Kind::kPrefix
                       ? PrefixTerms(column, word, max_expansions)
                       : FuzzyTerms(column, word, node.number, max_expansions),
                   false, 1, k1, b);
    }
    case BooleanNode::Kind::kGroup:
      break;
  }
  std::vector<Scores> must, should, must_not;
  for (const auto& clause : node.clauses) {
    std::optional<Scores> evaluated = Evaluate(column, clause, k1, b, max_expansions);
    if (!evaluated) continue;
    Scores scores = std::move(*evaluated);
    switch (clause.occur) {
      case BooleanNode::Occur::kMust:
        must.push_back(std::move(scores));
        break;
      case BooleanNode::Occur::kShould:
        should.push_back(std::move(scores));
        break;
      case BooleanNode::Occur::kMustNot:
        must_not.push_back(std::move(scores));
        break;
    }
  }
  if (must.empty() && should.empty() && must_not.empty()) return std::nullopt;
  // The candidates: a must clause's documents (the smallest list), or any should clause's.
  std::set<uint32_t> candidates;
  if (!must.empty()) {
    const auto smallest =
        std::min_element(must.begin(), must.end(),
                         [](const Scores& x, const Scores& y) { return x.size() < y.size(); });
    for (const auto& [document, score] : *smallest) candidates.insert(document);
  } else {
    for (const auto& scores : should) {
      for (const auto& [document, score] : scores) candidates.insert(document);
    }
  }
  Scores result;
  for (uint32_t document : candidates) {
    bool matches = true;
    double score = 0;
    for (const auto& scores : must) {
      const auto found = scores.find(document);
      if (found == scores.end()) {
        matches = false;
        break;
      }
      score += found->second;
    }
    if (!matches) continue;
    for (const auto& scores : must_not) {
      if (scores.count(document) > 0) matches = false;
    }
    if (!matches) continue;
    bool any_should = false;
    for (const auto& scores : should) {
      const auto found = scores.find(document);
      if (found == scores.end()) continue;
      any_should = true;
      score += found->second;
    }
    if (must.empty() && !any_should) continue;
    result[document] = score;
  }
  return result;
}

arrow::Result<ReferenceBm25::Scores> ReferenceBm25::Boolean(const Column& column,
                                                            const std::string& text, double k1,
                                                            double b, int max_expansions) const {
  Context context{text};
  BooleanNode root;
  ARROW_RETURN_NOT_OK(context.Clauses(&root.clauses));
  if (context.at < text.size()) {
    return InvalidArgument("reference: unbalanced ')' in '", text, "'");
  }
  return Evaluate(column, root, k1, b, max_expansions).value_or(Scores{});
}

arrow::Result<std::vector<ReferenceHit>> ReferenceBm25::Search(
    const query::TextSearchOptions& options) const {
  if (options.columns.empty()) return InvalidArgument("reference: no column");
  std::vector<std::pair<const Column*, double>> columns;
  for (const auto& boosted : options.columns) {
    const auto found = columns_.find(boosted.name);
    if (found == columns_.end()) {
      return InvalidArgument("reference: column '", boosted.name, "' was not analyzed");
    }
    columns.emplace_back(&found->second, boosted.boost);
  }
  const Column& first = *columns[0].first;
  const double k1 = options.k1;
  const double b = options.b;
  Scores scores;
  if (!row_addresses_.empty()) {
    switch (options.type) {
      case query::TextQueryType::kMatch:
        scores = Match(first, AnalyzeTerms(options.text), options.operator_and,
                       options.minimum_should_match, k1, b);
        break;
      case query::TextQueryType::kPhrase:
        scores = Phrase(first, AnalyzeTokens(options.text), options.slop, k1, b);
        break;
      case query::TextQueryType::kBoolean: {
        ARROW_ASSIGN_OR_RAISE(scores, Boolean(first, options.text, k1, b, options.max_expansions));
        break;
      }
      case query::TextQueryType::kMultiMatch:
        for (const auto& [column, boost] : columns) {
          const Scores column_scores =
              Match(*column, AnalyzeTerms(options.text), options.operator_and,
                    options.minimum_should_match, k1, b);
          for (const auto& [document, score] : column_scores) {
            const auto [at, inserted] = scores.emplace(document, score * boost);
            if (!inserted) at->second = std::max(at->second, score * boost);
          }
        }
        break;
      case query::TextQueryType::kPrefix:
        scores = Match(first, PrefixTerms(first, Normalize(options.text), options.max_expansions),
                       false, 1, k1, b);
        break;
      case query::TextQueryType::kFuzzy:
        scores = Match(
            first,
            FuzzyTerms(first, Normalize(options.text), options.fuzziness, options.max_expansions),
            false, 1, k1, b);
        break;
    }
  }
  std::vector<ReferenceHit> hits;
  for (const auto& [document, score] : scores) {
    hits.push_back({row_addresses_[document], score});
  }
  std::sort(hits.begin(), hits.end(), [](const ReferenceHit& x, const ReferenceHit& y) {
    return x.score != y.score ? x.score > y.score : x.row_address < y.row_address;
  });
  return hits;
}

}  // namespace tessera::testing
