#include "tessera/query/text_query_plan.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "tessera/query/text_term_expansion.h"

namespace tessera::query {

namespace {

struct QueryToken {
  std::string term;
  uint32_t position = 0;
};

std::vector<QueryToken> AnalyzeText(index::text::Analyzer& analyzer, std::string_view text) {
  std::vector<QueryToken> tokens;
  analyzer.Analyze(text, 0, [&](const index::text::Token& token) {
    tokens.push_back({std::string(token.term), token.position});
  });
  return tokens;
}

class TextPlanner {
 public:
  TextPlanner(const TextSearchOptions& options, index::text::Analyzer& analyzer, TermTable& terms,
              const Bm25& bm25, std::vector<std::string>* query_terms)
      : options_(options),
        analyzer_(analyzer),
        terms_(terms),
        bm25_(bm25),
        query_terms_(query_terms) {}

  arrow::Result<PlanTerm> Term(const std::string& term, double multiplicity) {
    ARROW_ASSIGN_OR_RAISE(const TermInfo* info, terms_.Find(term));
    PlanTerm planned;
    planned.term = term;
    planned.idf = bm25_.Idf(static_cast<double>(info->document_frequency));
    planned.weight = planned.idf * multiplicity;
    planned.postings = info->postings;
    if (query_terms_ != nullptr) query_terms_->push_back(term);
    return planned;
  }

  // Distinct terms in order of first occurrence, a repeated one weighing as often as it occurs.
  arrow::Result<std::optional<PlanNode>> Terms(const std::vector<std::string>& words) {
    if (words.empty()) return std::nullopt;
    std::vector<std::pair<std::string, int>> distinct;
    for (const auto& word : words) {
      bool seen = false;
      for (auto& [term, count] : distinct) {
        if (term == word) {
          ++count;
          seen = true;
          break;
        }
      }
      if (!seen) distinct.emplace_back(word, 1);
    }
    PlanNode node;
    node.kind = PlanNode::Kind::kTerms;
    for (const auto& [term, count] : distinct) {
      ARROW_ASSIGN_OR_RAISE(auto planned, Term(term, count));
      node.terms.push_back(std::move(planned));
    }
    return node;
  }

  arrow::Result<std::optional<PlanNode>> Match(std::string_view text) {
    std::vector<std::string> words;
    for (auto& token : AnalyzeText(analyzer_, text)) words.push_back(std::move(token.term));
    ARROW_ASSIGN_OR_RAISE(auto node, Terms(words));
    if (node) {
      node->min_match = options_.operator_and
                            ? node->terms.size()
                            : static_cast<size_t>(std::max(1, options_.minimum_should_match));
    }
    return node;
  }

  arrow::Result<std::optional<PlanNode>> Phrase(std::string_view text, int slop) {
    auto tokens = AnalyzeText(analyzer_, text);
    if (tokens.empty()) return std::nullopt;
    if (tokens.size() == 1) return Terms({tokens[0].term});
    PlanNode node;
    node.kind = PlanNode::Kind::kPhrase;
    node.slop = slop;
    for (const auto& token : tokens) {
      ARROW_ASSIGN_OR_RAISE(auto planned, Term(token.term, 1));
      node.phrase_weight += planned.idf;
      node.terms.push_back(std::move(planned));
      node.offsets.push_back(token.position - tokens[0].position);
    }
    return node;
  }

  // The expansion of a prefix or fuzzy word; a node without terms when nothing matches it.
  arrow::Result<std::optional<PlanNode>> Expansion(std::string_view text, bool fuzzy, int fuzziness,
                                                   const TextSources& sources) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
      text.remove_prefix(1);
    }
    while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) ||
                             (!fuzzy && text.back() == '*'))) {
      text.remove_suffix(1);
    }
    const std::string word = analyzer_.NormalizeWord(text);
    if (word.empty()) return std::nullopt;
    std::vector<std::string> expanded;
    if (fuzzy) {
      ARROW_ASSIGN_OR_RAISE(expanded,
                            ExpandFuzzy(sources, word, fuzziness, options_.max_expansions, terms_));
    } else {
      ARROW_ASSIGN_OR_RAISE(expanded, ExpandPrefix(sources, word, options_.max_expansions, terms_));
    }
    PlanNode node;
    node.kind = PlanNode::Kind::kTerms;
    for (const auto& term : expanded) {
      ARROW_ASSIGN_OR_RAISE(auto planned, Term(term, 1));
      node.terms.push_back(std::move(planned));
    }
    return node;
  }

  arrow::Result<std::optional<PlanNode>> Clause(const TextClause& clause,
                                                const TextSources& sources) {
    switch (clause.kind) {
      case TextClause::Kind::kWord: {
        ARROW_ASSIGN_OR_RAISE(auto child, Match(clause.text));
        if (child) child->min_match = 1;
        return child;
      }
      case TextClause::Kind::kPhrase:
        return Phrase(clause.text, clause.slop);
      case TextClause::Kind::kPrefix:
        return Expansion(clause.text, false, 0, sources);
      case TextClause::Kind::kFuzzy:
        return Expansion(clause.text, true, clause.fuzziness, sources);
      case TextClause::Kind::kGroup:
        return Boolean(clause.children, sources);
    }
    return std::nullopt;
  }

  arrow::Result<std::optional<PlanNode>> Boolean(const std::vector<TextClause>& clauses,
                                                 const TextSources& sources) {
    PlanNode node;
    node.kind = PlanNode::Kind::kBoolean;
    for (const TextClause& clause : clauses) {
      ARROW_ASSIGN_OR_RAISE(auto child, Clause(clause, sources));
      // A clause the analyzer leaves nothing of (only stop words) is dropped, whatever its
      // occurrence, as Lucene drops it: "+the +cat" asks for cat. (A must clause of a term no
      // document holds is kept, and matches nothing.)
      if (!child) continue;
      child->occur = clause.occur;
      node.children.push_back(std::move(*child));
    }
    if (node.children.empty()) return std::nullopt;
    return Simplify(std::move(node));
  }

  // Should-only disjunctions of terms become one disjunction (block-max WAND serves it); a
  // single must or should child stands for its parent.
  static PlanNode Simplify(PlanNode node) {
    bool disjunction = true;
    for (const PlanNode& child : node.children) {
      if (child.occur != Occur::kShould || child.kind != PlanNode::Kind::kTerms ||
          child.min_match > 1) {
        disjunction = false;
      }
    }
    if (disjunction) {
      PlanNode flat;
      flat.kind = PlanNode::Kind::kTerms;
      for (PlanNode& child : node.children) {
        for (PlanTerm& term : child.terms) flat.terms.push_back(std::move(term));
      }
      return flat;
    }
    if (node.children.size() == 1 && node.children[0].occur != Occur::kMustNot) {
      PlanNode child = std::move(node.children[0]);
      child.occur = Occur::kShould;
      return child;
    }
    return node;
  }

 private:
  const TextSearchOptions& options_;
  index::text::Analyzer& analyzer_;
  TermTable& terms_;
  const Bm25& bm25_;
  std::vector<std::string>* query_terms_;
};

}  // namespace

arrow::Result<std::optional<PlanNode>> BuildPlan(const TextSearchOptions& options,
                                                 TextQueryType type,
                                                 index::text::Analyzer& analyzer,
                                                 const TextSources& sources, TermTable& terms,
                                                 const Bm25& bm25,
                                                 std::vector<std::string>* query_terms) {
  TextPlanner planner(options, analyzer, terms, bm25, query_terms);
  switch (type) {
    case TextQueryType::kMatch:
    case TextQueryType::kMultiMatch:
      return planner.Match(options.text);
    case TextQueryType::kPhrase:
      return planner.Phrase(options.text, options.slop);
    case TextQueryType::kBoolean: {
      ARROW_ASSIGN_OR_RAISE(auto clauses, ParseBooleanQuery(options.text));
      return planner.Boolean(clauses, sources);
    }
    case TextQueryType::kPrefix:
      return planner.Expansion(options.text, false, 0, sources);
    case TextQueryType::kFuzzy:
      return planner.Expansion(options.text, true, options.fuzziness, sources);
  }
  return std::nullopt;
}

}  // namespace tessera::query
