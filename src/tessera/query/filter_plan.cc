#include "tessera/query/filter_plan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::query {

namespace {

using expr::Node;
using expr::NodeKind;
using index::ScalarQuery;

// A scalar segment that serves one column on some fragments.
struct Source {
  std::string index_name;
  std::string family;
  std::string segment_uuid;
  const index::ScalarSegmentReader* reader = nullptr;
  Roaring fragments;  // the segment's fragment bitmap: every row it answers lies in one
};

// What a search asks of a leaf's column; with the leaf, the key of the search cache.
enum class Probe { kPrimary, kIsNotNull, kIsNull, kEqual, kTrue, kFalse };

// A predicate an index answered on a fragment, for explain.
struct Use {
  const Source* source;
  std::string predicate;
};

// A superset of the rows of one fragment where a node has a given truth value; unbounded when
// absent.
struct Bound {
  std::optional<Roaring> rows;
  std::vector<Use> uses;

  static Bound All() { return {}; }
  static Bound None() { return {Roaring(), {}}; }
};

struct Answer {
  Roaring rows;  // offsets within the fragment
  bool exact = true;
};

std::string ShortUuid(const std::string& uuid) { return uuid.substr(0, 8); }

std::string Quote(const std::string& text) { return "'" + text + "'"; }

// A node's rendering without the parentheses around the whole of it: "price < 10".
std::string Unwrapped(const Node& node) {
  std::string text = node.ToString();
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote reopens at once: same effect
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return text;  // the first parenthesis closes before the end
    }
  }
  return text.substr(1, text.size() - 2);
}

// The column of a leaf the index may answer, or null.
const expr::Column* IndexableColumn(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kColumn:
      return node.type()->id() == arrow::Type::BOOL ? &node.As<expr::Column>() : nullptr;
    case NodeKind::kCompare: {
      const auto& compare = node.As<expr::Compare>();
      if (compare.left().kind() != NodeKind::kColumn) return nullptr;
      if (compare.right().kind() != NodeKind::kLiteral) return nullptr;
      if (compare.right().As<expr::Literal>().is_null()) return nullptr;
      return &compare.left().As<expr::Column>();
    }
    case NodeKind::kInList:
      return &node.As<expr::InList>().column();
    case NodeKind::kBetween:
      return &node.As<expr::Between>().column();
    case NodeKind::kIsNull:
      return &node.As<expr::IsNull>().column();
    default:
      return nullptr;
  }
}

void CollectIndexableColumns(const Node& node, std::set<int>* fields) {
  switch (node.kind()) {
    case NodeKind::kAnd:
      for (const auto& child : node.As<expr::And>().children()) {
        CollectIndexableColumns(*child, fields);
      }
      return;
    case NodeKind::kOr:
      for (const auto& child : node.As<expr::Or>().children()) {
        CollectIndexableColumns(*child, fields);
      }
      return;
    case NodeKind::kNot:
      CollectIndexableColumns(node.As<expr::Not>().child(), fields);
      return;
    default:
      if (const expr::Column* column = IndexableColumn(node)) fields->insert(column->field_index());
      return;
  }
}

ScalarQuery MakeQuery(ScalarQuery::Kind kind) {
  ScalarQuery query;
  query.kind = kind;
  return query;
}

ScalarQuery EqualsQuery(std::shared_ptr<arrow::Scalar> value) {
  ScalarQuery query = MakeQuery(ScalarQuery::Kind::kEquals);
  query.values.push_back(std::move(value));
  return query;
}

// The search answering where a leaf is TRUE (`!=` excepted: it is answered from kEqual).
ScalarQuery PrimaryQuery(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kCompare: {
      const auto& compare = node.As<expr::Compare>();
      const auto& value = compare.right().As<expr::Literal>().value();
      ScalarQuery query = MakeQuery(ScalarQuery::Kind::kRange);
      switch (compare.op()) {
        case expr::CompareOp::kEqual:
        case expr::CompareOp::kNotEqual:
          return EqualsQuery(value);
        case expr::CompareOp::kLess:
          query.upper = index::ScalarBound{value, false};
          break;
        case expr::CompareOp::kLessEqual:
          query.upper = index::ScalarBound{value, true};
          break;
        case expr::CompareOp::kGreater:
          query.lower = index::ScalarBound{value, false};
          break;
        case expr::CompareOp::kGreaterEqual:
          query.lower = index::ScalarBound{value, true};
          break;
      }
      return query;
    }
    case NodeKind::kInList: {
      ScalarQuery query = MakeQuery(ScalarQuery::Kind::kIn);
      query.values = node.As<expr::InList>().values();
      return query;
    }
    case NodeKind::kBetween: {
      const auto& between = node.As<expr::Between>();
      ScalarQuery query = MakeQuery(ScalarQuery::Kind::kRange);
      query.lower = index::ScalarBound{between.lower(), true};
      query.upper = index::ScalarBound{between.upper(), true};
      return query;
    }
    default:
      return MakeQuery(ScalarQuery::Kind::kIsNull);
  }
}

// Offsets of the rows of `fragment` in an ascending list of row addresses.
Roaring SliceFragment(const std::vector<uint64_t>& rows, uint32_t fragment) {
  const uint64_t first = dataset::MakeRowAddress(fragment, 0);
  const uint64_t last = dataset::MakeRowAddress(fragment, UINT32_MAX);
  auto begin = std::lower_bound(rows.begin(), rows.end(), first);
  auto end = std::upper_bound(begin, rows.end(), last);
  std::vector<uint32_t> offsets;
  offsets.reserve(static_cast<size_t>(end - begin));
  for (auto it = begin; it != end; ++it) offsets.push_back(dataset::OffsetOf(*it));
  Roaring slice;
  slice.addMany(offsets.size(), offsets.data());
  return slice;
}

void AppendUses(std::vector<Use>* to, std::vector<Use> from) {
  for (auto& use : from) to->push_back(std::move(use));
}

class Planner {
 public:
  Planner(const dataset::Dataset& dataset, const expr::Filter& filter)
      : dataset_(dataset), filter_(filter) {}

  arrow::Status Prepare(std::vector<std::string>* notes) {
    std::set<int> fields;
    CollectIndexableColumns(filter_.root(), &fields);
    std::unordered_map<int32_t, int> field_of_id;
    for (int field : fields) field_of_id[dataset_.field_ids()[static_cast<size_t>(field)]] = field;
    Roaring live;
    for (const auto& fragment : dataset_.manifest().fragments()) {
      live.add(fragment.id());
      physical_rows_[fragment.id()] = fragment.physical_rows();
    }

    for (const auto& definition : dataset_.manifest().indexes()) {
      auto found = field_of_id.find(definition.field_id());
      if (found == field_of_id.end()) continue;
      const int field = found->second;
      const index::IndexFamily* family = index::FindFamily(definition.family());
      if (family == nullptr) {
        notes->push_back("index '" + definition.name() + "' not used: unknown index family '" +
                         definition.family() + "'");
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto segments,
                            index::OpenLiveSegments(dataset_.storage(), *family, definition, live));
      for (auto& [segment, reader, covered, fragments] : segments) {
        const index::ScalarSegmentReader* scalar = reader->AsScalar();
        if (scalar == nullptr) break;  // not a scalar family: no predicate goes to it
        auto source = std::make_unique<Source>(Source{
            definition.name(), definition.family(), segment->uuid(), scalar, std::move(fragments)});
        auto& by_fragment = sources_[field];
        for (uint32_t fragment : covered) by_fragment.emplace(fragment, source.get());
        indexed_fields_.insert(field);
        readers_.push_back(std::move(reader));
        owned_sources_.push_back(std::move(source));
      }
    }
    return arrow::Status::OK();
  }

  arrow::Result<FragmentFilterPlan> PlanFragment(int position) {
    const format::Fragment& fragment = dataset_.manifest().fragments(position);
    FragmentFilterPlan plan;
    plan.position = position;
    plan.fragment_id = fragment.id();
    ARROW_ASSIGN_OR_RAISE(Bound bound, BoundOf(filter_.root(), true, fragment.id()));
    if (!bound.rows) {
      plan.description = ScanReason(fragment.id());
      return plan;
    }
    ARROW_ASSIGN_OR_RAISE(auto deleted, dataset::LoadDeletionVector(*dataset_.storage(), fragment));
    Roaring candidates = std::move(*bound.rows);
    candidates -= *deleted;
    plan.candidates = std::move(candidates);
    plan.description = DescribeUses(bound.uses);
    plan.index_used = !bound.uses.empty();
    return plan;
  }

 private:
  const Source* SourceFor(int field, uint32_t fragment) const {
    auto column = sources_.find(field);
    if (column == sources_.end()) return nullptr;
    auto found = column->second.find(fragment);
    return found == column->second.end() ? nullptr : found->second;
  }

  // The answer of `query` on `fragment`, searched once per segment.
  arrow::Result<Answer> Search(const Source& source, const Node& node, Probe probe,
                               const ScalarQuery& query, uint32_t fragment) {
    const auto key = std::make_tuple(source.reader, &node, probe);
    auto cached = cache_.find(key);
    if (cached == cache_.end()) {
      auto answer = source.reader->Search(query);
      if (!answer.ok()) {
        return WithContext(answer.status(), "searching segment " + source.segment_uuid +
                                                " of index '" + source.index_name + "' for " +
                                                node.ToString());
      }
      ARROW_RETURN_NOT_OK(CheckAnswer(source, answer->rows));
      cached = cache_.emplace(key, std::move(answer).ValueUnsafe()).first;
    }
    return Answer{SliceFragment(cached->second.rows, fragment), cached->second.exact};
  }

  // A segment answers only with rows of the fragments it covers; anything else means its files
  // hold wrong row addresses, which must never be silently dropped or returned.
  arrow::Status CheckAnswer(const Source& source, const std::vector<uint64_t>& rows) const {
    for (uint64_t address : rows) {
      const uint32_t fragment = dataset::FragmentOf(address);
      const auto found = physical_rows_.find(fragment);
      const bool covered = source.fragments.contains(fragment);
      // Fragments the segment covers may have left the version (all rows deleted).
      if (covered &&
          (found == physical_rows_.end() || dataset::OffsetOf(address) < found->second)) {
        continue;
      }
      return Corrupt("segment ", source.segment_uuid, " of index '", source.index_name,
                     "' answers with row address ", address, " (fragment ", fragment, ", row ",
                     dataset::OffsetOf(address), "), which ",
                     covered ? "is beyond the fragment's rows" : "is not in a fragment it covers",
                     "; rebuild the index (tessera index create --replace) or drop it");
    }
    return arrow::Status::OK();
  }

  Bound Leaf(const Source& source, const Node& node, bool truth, Roaring rows) const {
    Bound bound;
    bound.rows = std::move(rows);
    bound.uses.push_back(Use{&source, truth ? Unwrapped(node) : "NOT (" + Unwrapped(node) + ")"});
    return bound;
  }

  // The non-null rows minus `positive` where it is exact: the rows where a leaf that is unknown
  // exactly on null rows is FALSE, given its TRUE answer.
  arrow::Result<Roaring> NonNullExcept(const Source& source, const Node& node, uint32_t fragment,
                                       const Answer& positive) {
    ARROW_ASSIGN_OR_RAISE(Answer non_null,
                          Search(source, node, Probe::kIsNotNull,
                                 MakeQuery(ScalarQuery::Kind::kIsNotNull), fragment));
    if (positive.exact) non_null.rows -= positive.rows;
    return std::move(non_null.rows);
  }

  arrow::Result<Bound> BoundOfLeaf(const Node& node, bool truth, uint32_t fragment) {
    const expr::Column* column = IndexableColumn(node);
    if (column == nullptr) return Bound::All();
    const Source* source = SourceFor(column->field_index(), fragment);
    if (source == nullptr) return Bound::All();

    switch (node.kind()) {
      case NodeKind::kColumn: {
        const Probe probe = truth ? Probe::kTrue : Probe::kFalse;
        ARROW_ASSIGN_OR_RAISE(
            Answer answer,
            Search(*source, node, probe, EqualsQuery(std::make_shared<arrow::BooleanScalar>(truth)),
                   fragment));
        return Leaf(*source, node, truth, std::move(answer.rows));
      }
      case NodeKind::kIsNull: {
        if (truth) {
          ARROW_ASSIGN_OR_RAISE(Answer answer,
                                Search(*source, node, Probe::kIsNull,
                                       MakeQuery(ScalarQuery::Kind::kIsNull), fragment));
          return Leaf(*source, node, truth, std::move(answer.rows));
        }
        ARROW_ASSIGN_OR_RAISE(Answer answer,
                              Search(*source, node, Probe::kIsNotNull,
                                     MakeQuery(ScalarQuery::Kind::kIsNotNull), fragment));
        return Leaf(*source, node, truth, std::move(answer.rows));
      }
      case NodeKind::kCompare:
        if (node.As<expr::Compare>().op() == expr::CompareOp::kNotEqual) {
          // `x != v` is FALSE exactly where `x = v` is TRUE, and TRUE on the other non-null
          // rows (NaN rows included: NaN equals nothing).
          ARROW_ASSIGN_OR_RAISE(Answer equal,
                                Search(*source, node, Probe::kEqual, PrimaryQuery(node), fragment));
          if (!truth) return Leaf(*source, node, truth, std::move(equal.rows));
          ARROW_ASSIGN_OR_RAISE(Roaring rows, NonNullExcept(*source, node, fragment, equal));
          return Leaf(*source, node, truth, std::move(rows));
        }
        break;
      case NodeKind::kInList: {
        const auto& in = node.As<expr::InList>();
        // An unmatched non-null row is unknown when the list holds NULL, so never FALSE.
        if (!truth && in.has_null()) return Leaf(*source, node, truth, Roaring());
        if (in.values().empty()) {
          if (truth) return Leaf(*source, node, truth, Roaring());
          ARROW_ASSIGN_OR_RAISE(Roaring rows,
                                NonNullExcept(*source, node, fragment, Answer{Roaring(), true}));
          return Leaf(*source, node, truth, std::move(rows));
        }
        break;
      }
      default:
        break;
    }
    // Comparisons with a literal, BETWEEN and IN: unknown exactly on null rows.
    ARROW_ASSIGN_OR_RAISE(Answer positive,
                          Search(*source, node, Probe::kPrimary, PrimaryQuery(node), fragment));
    if (truth) return Leaf(*source, node, truth, std::move(positive.rows));
    ARROW_ASSIGN_OR_RAISE(Roaring rows, NonNullExcept(*source, node, fragment, positive));
    return Leaf(*source, node, truth, std::move(rows));
  }

  // Intersection (`intersect`) or union of the children's bounds for `truth`.
  arrow::Result<Bound> Combine(const std::vector<expr::NodePtr>& children, bool truth,
                               bool intersect, uint32_t fragment) {
    Bound result = Bound::All();
    for (const auto& child : children) {
      ARROW_ASSIGN_OR_RAISE(Bound bound, BoundOf(*child, truth, fragment));
      if (intersect) {
        if (!bound.rows) continue;  // no restriction from this child
        if (!result.rows) {
          result.rows = std::move(bound.rows);
        } else {
          *result.rows &= *bound.rows;
        }
        AppendUses(&result.uses, std::move(bound.uses));
      } else {
        if (!bound.rows) return Bound::All();  // one unbounded branch unbounds the union
        if (!result.rows) {
          result.rows = std::move(bound.rows);
        } else {
          *result.rows |= *bound.rows;
        }
        AppendUses(&result.uses, std::move(bound.uses));
      }
    }
    return result;
  }

  arrow::Result<Bound> BoundOf(const Node& node, bool truth, uint32_t fragment) {
    switch (node.kind()) {
      case NodeKind::kLiteral: {
        const auto& literal = node.As<expr::Literal>();
        if (literal.is_null()) return Bound::None();  // unknown is neither TRUE nor FALSE
        if (literal.value()->type->id() != arrow::Type::BOOL) return Bound::All();
        const bool value = static_cast<const arrow::BooleanScalar&>(*literal.value()).value;
        return value == truth ? Bound::All() : Bound::None();
      }
      case NodeKind::kAnd:
        // AND is TRUE where every child is; FALSE where some child is.
        return Combine(node.As<expr::And>().children(), truth, /*intersect=*/truth, fragment);
      case NodeKind::kOr:
        return Combine(node.As<expr::Or>().children(), truth, /*intersect=*/!truth, fragment);
      case NodeKind::kNot:
        return BoundOf(node.As<expr::Not>().child(), !truth, fragment);
      default:
        return BoundOfLeaf(node, truth, fragment);
    }
  }

  std::string DescribeUses(const std::vector<Use>& uses) const {
    std::vector<const Source*> order;
    std::map<const Source*, std::vector<std::string>> predicates;
    for (const auto& use : uses) {
      auto& list = predicates[use.source];
      if (list.empty()) order.push_back(use.source);
      if (std::find(list.begin(), list.end(), use.predicate) == list.end()) {
        list.push_back(use.predicate);
      }
    }
    if (order.empty()) return "nothing read (the filter is never true here)";
    std::string text;
    for (const Source* source : order) {
      if (!text.empty()) text += "; ";
      text += source->family + " index '" + source->index_name + "' segment " +
              ShortUuid(source->segment_uuid) + " answers ";
      const auto& list = predicates[source];
      for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) text += (i + 1 == list.size()) ? " and " : ", ";
        text += Quote(list[i]);
      }
    }
    return text;
  }

  std::string ScanReason(uint32_t fragment) const {
    std::vector<std::string> covering;
    std::vector<std::string> indexed_columns;
    for (int field : indexed_fields_) {
      indexed_columns.push_back(dataset_.schema()->field(field)->name());
      if (const Source* source = SourceFor(field, fragment)) {
        const std::string name = Quote(source->index_name);
        if (std::find(covering.begin(), covering.end(), name) == covering.end()) {
          covering.push_back(name);
        }
      }
    }
    auto join = [](const std::vector<std::string>& items) {
      std::string text;
      for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
      return text;
    };
    if (!covering.empty()) {
      return "scan (index " + join(covering) + " covers it but cannot narrow the filter)";
    }
    if (!indexed_columns.empty()) {
      return "scan (not covered by an index on " + join(indexed_columns) + ")";
    }
    if (filter_.referenced_columns().empty()) return "scan";
    return "scan (no index answers predicates on " + join(filter_.referenced_columns()) + ")";
  }

  std::unordered_map<uint32_t, uint64_t> physical_rows_;  // of the version's fragments
  const dataset::Dataset& dataset_;
  const expr::Filter& filter_;
  std::vector<std::unique_ptr<index::SegmentReader>> readers_;
  std::vector<std::unique_ptr<Source>> owned_sources_;
  // schema field index → fragment id → the segment serving that column on that fragment
  std::map<int, std::unordered_map<uint32_t, const Source*>> sources_;
  std::set<int> indexed_fields_;
  std::map<std::tuple<const index::ScalarSegmentReader*, const Node*, Probe>, index::RowAddressSet>
      cache_;
};

}  // namespace

bool FilterPlan::any_indexed() const {
  return std::any_of(fragments.begin(), fragments.end(),
                     [](const FragmentFilterPlan& plan) { return plan.candidates.has_value(); });
}

arrow::Result<FilterPlan> PlanFilter(const dataset::Dataset& dataset, const expr::Filter& filter) {
  FilterPlan plan;
  Planner planner(dataset, filter);
  ARROW_RETURN_NOT_OK(planner.Prepare(&plan.notes));
  const int count = dataset.manifest().fragments_size();
  plan.fragments.reserve(static_cast<size_t>(count));
  for (int position = 0; position < count; ++position) {
    ARROW_ASSIGN_OR_RAISE(auto fragment, planner.PlanFragment(position));
    plan.fragments.push_back(std::move(fragment));
  }
  return plan;
}

void ExplainFilterPlan(const FilterPlan& plan, std::string_view prefix, Explain* explain) {
  if (explain == nullptr) return;
  for (const auto& note : plan.notes) explain->Add(std::string(prefix) + note);
  struct Group {
    std::vector<uint32_t> fragments;
    bool index_used = false;
    uint64_t candidates = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const auto& fragment : plan.fragments) {
    auto [it, inserted] = groups.try_emplace(fragment.description);
    if (inserted) order.push_back(fragment.description);
    it->second.fragments.push_back(fragment.fragment_id);
    if (fragment.candidates) it->second.candidates += fragment.candidates->cardinality();
    it->second.index_used |= fragment.index_used;
  }
  for (const auto& description : order) {
    const Group& group = groups[description];
    std::string line =
        std::string(prefix) + DescribeFragments(group.fragments) + ": " + description;
    if (group.index_used)
      line += " (" + std::to_string(group.candidates) + " candidates, rechecked)";
    explain->Add(std::move(line));
  }
}

}  // namespace tessera::query
