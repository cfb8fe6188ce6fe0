#include "tessera/query/filter_plan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_statistics.h"
#include "tessera/expr/compare_values.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

namespace {

using expr::Node;
using expr::NodeKind;

// A scalar segment that answers leaves on one column for the fragments it covers.
struct Source {
  std::string index_name;
  std::string family;
  std::string segment_uuid;
  const index::ScalarSegmentReader* reader = nullptr;
  const Roaring* fragments = nullptr;  // its fragment bitmap: every row it answers lies in one
};

// A leaf an index answered on a fragment, for explain.
struct Use {
  const Source* source;
  std::string predicate;
};

// A superset of the rows of one fragment where a node has a given truth value.
struct Bound {
  std::optional<Roaring> rows;  // absent: every row
  bool exact = false;           // rows (or every row) are exactly those rows
  std::vector<Use> uses;
  std::string how;                      // how the index answers were combined, for explain
  std::vector<std::string> statistics;  // what fragment statistics decided, for explain

  static Bound Unbounded() { return {}; }
  static Bound Everything() { return {std::nullopt, true, {}, "every row", {}}; }
  static Bound Nothing() { return {Roaring(), true, {}, "no row", {}}; }
  bool unbounded() const { return !rows && !exact; }
};

// One segment's answer to one leaf, split by fragment.
struct FragmentAnswers {
  bool exact = true;
  std::unordered_map<uint32_t, Roaring> rows;  // offsets per fragment
};

std::string ShortUuid(const std::string& uuid) { return uuid.substr(0, 8); }

std::string Quote(const std::string& text) { return "'" + text + "'"; }

void CollectLeafFields(const Node& node, std::set<int>* fields) {
  switch (node.kind()) {
    case NodeKind::kAnd:
      for (const auto& child : node.As<expr::And>().children()) CollectLeafFields(*child, fields);
      return;
    case NodeKind::kOr:
      for (const auto& child : node.As<expr::Or>().children()) CollectLeafFields(*child, fields);
      return;
    case NodeKind::kNot:
      CollectLeafFields(node.As<expr::Not>().child(), fields);
      return;
    default:
      if (const expr::Column* column = index::LeafColumn(node)) {
        fields->insert(column->field_index());
      }
      return;
  }
}

// Whether a single-column leaf is unknown exactly on the null rows of its column, and TRUE or
// FALSE on every other row.
bool UnknownOnlyOnNulls(const Node& leaf) {
  switch (leaf.kind()) {
    case NodeKind::kColumn:
    case NodeKind::kCompare:
    case NodeKind::kBetween:
    case NodeKind::kLike:
    case NodeKind::kArrayHas:
      return true;
    case NodeKind::kInList:
      return !leaf.As<expr::InList>().has_null();
    default:
      return false;
  }
}

// Segments of at least this many rows are used for a leaf only when their estimated cost is at
// most a share of their rows, the share of PlanPurpose (filter_plan.h) divided by the threads a
// scan uses.
constexpr double kMinimumRowsForCostChoice = 65536;
// Each fragment's decoded statistics, by manifest position (Snapshot::Derived).
using DecodedStatistics = std::vector<arrow::Result<std::map<int, dataset::ColumnRange>>>;

struct Shares {
  double scattered;  // 1 / the share of rows for answers of scattered rows
  double clustered;  // the same for answers of consecutive runs (Capability::clustered)
};
constexpr Shares kReadRowsShares{32, 4};
constexpr Shares kFindRowsShares{100, 16};

bool Better(const index::Capability& candidate, const index::Capability& best) {
  if (best.coverage == index::Coverage::kNone) return true;
  if (candidate.coverage != best.coverage) return candidate.coverage == index::Coverage::kExact;
  return candidate.cost < best.cost;
}

std::string Parenthesized(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : std::string(separator)) + part;
  return parts.size() > 1 ? "(" + text + ")" : text;
}

class Planner {
 public:
  Planner(const Snapshot& snapshot, const expr::Filter& filter, PlanPurpose purpose)
      : snapshot_(snapshot),
        filter_(filter),
        shares_(purpose == PlanPurpose::kFindRows ? kFindRowsShares : kReadRowsShares),
        purpose_(purpose) {}

  arrow::Status Prepare(std::vector<std::string>* notes) {
    for (const auto& fragment : snapshot_.manifest().fragments()) {
      physical_rows_[fragment.id()] = fragment.physical_rows();
    }
    std::set<int> fields;
    CollectLeafFields(filter_.root(), &fields);
    for (int field : fields) {
      for (int position : snapshot_.IndexesOnField(field)) {
        const index::IndexFamily* family =
            index::FindFamily(snapshot_.manifest().indexes(position).family());
        if (family != nullptr && !family->answers_predicates()) continue;
        ARROW_ASSIGN_OR_RAISE(const OpenedIndex* opened, snapshot_.Index(position));
        const format::IndexDef& definition = *opened->definition;
        if (opened->family == nullptr) {
          notes->push_back("index '" + definition.name() + "' not used: unknown index family '" +
                           definition.family() + "'");
          continue;
        }
        for (const OpenedSegment& segment : opened->segments) {
          const index::ScalarSegmentReader* scalar = segment.reader->AsScalar();
          if (scalar == nullptr) break;  // not a scalar family: no predicate goes to it
          auto source =
              std::make_unique<Source>(Source{definition.name(), definition.family(),
                                              segment.meta->uuid(), scalar, &segment.fragments});
          auto& by_fragment = sources_[field];
          for (uint32_t fragment : segment.live_fragments) {
            by_fragment[fragment].push_back(source.get());
          }
          indexed_fields_.insert(field);
          owned_sources_.push_back(std::move(source));
        }
      }
    }
    return arrow::Status::OK();
  }

  void TakeNotes(std::vector<std::string>* notes) {
    for (auto& note : notes_) notes->push_back(std::move(note));
    notes_.clear();
  }

  arrow::Result<FragmentFilterPlan> PlanFragment(int position) {
    const format::Fragment& fragment = snapshot_.manifest().fragments(position);
    FragmentFilterPlan plan;
    plan.position = position;
    plan.fragment_id = fragment.id();
    every_row_ = Roaring();
    every_row_.addRange(0, fragment.physical_rows());
    ARROW_RETURN_NOT_OK(LoadStatistics(position));
    ARROW_ASSIGN_OR_RAISE(Bound bound, RootBound(fragment.id()));
    // Every row to recheck (statistics said every row passes one term, nothing narrowed the
    // others): a scan evaluates them faster than a read of each row by address.
    if (!bound.exact && !bound.statistics.empty() && bound.rows &&
        bound.rows->cardinality() == every_row_.cardinality()) {
      bound = Bound::Unbounded();
    }
    if (bound.unbounded()) {
      plan.description = ScanReason(fragment.id());
      return plan;
    }
    ARROW_ASSIGN_OR_RAISE(auto deleted, snapshot_.deletions().Get(fragment));
    plan.description = DescribeUses(bound);
    Roaring candidates = bound.rows ? std::move(*bound.rows) : every_row_;
    candidates -= *deleted;
    plan.candidates = std::move(candidates);
    plan.exact = bound.exact;
    plan.index_used = !bound.uses.empty();
    return plan;
  }

 private:
  const std::vector<const Source*>& SourcesFor(int field, uint32_t fragment) const {
    static const std::vector<const Source*> kNone;
    auto column = sources_.find(field);
    if (column == sources_.end()) return kNone;
    auto found = column->second.find(fragment);
    return found == column->second.end() ? kNone : found->second;
  }

  // `source`'s answer to `leaf`, computed once and split by fragment.
  arrow::Result<const FragmentAnswers*> AnswerOf(const Source& source, const Node& leaf) {
    const auto key = std::make_pair(source.reader, &leaf);
    auto cached = answers_.find(key);
    if (cached != answers_.end()) return &cached->second;
    auto answer = source.reader->Answer(leaf);
    if (!answer.ok()) {
      return WithContext(answer.status(), "searching segment " + source.segment_uuid +
                                              " of index '" + source.index_name + "' for " +
                                              leaf.ToString());
    }
    FragmentAnswers split;
    split.exact = answer->exact;
    uint32_t current = 0;
    uint64_t limit = 0;  // the offsets `current` may have, checked once per fragment
    std::vector<uint32_t> offsets;
    const auto flush = [&]() {
      if (!offsets.empty()) split.rows[current].addMany(offsets.size(), offsets.data());
      offsets.clear();
    };
    for (size_t i = 0; i < answer->rows.size(); ++i) {
      const uint64_t address = answer->rows[i];
      const uint32_t fragment = dataset::FragmentOf(address);
      if (i == 0 || fragment != current) {
        flush();
        current = fragment;
        limit = OffsetLimit(source, fragment);
      }
      if (dataset::OffsetOf(address) >= limit) return AddressError(source, address);
      offsets.push_back(dataset::OffsetOf(address));
    }
    flush();
    for (const index::RowAddressRun& run : answer->runs) {
      if (run.count == 0) continue;
      const uint32_t fragment = dataset::FragmentOf(run.first);
      const uint64_t last = run.first + run.count - 1;
      if (dataset::FragmentOf(last) != fragment) return AddressError(source, last);
      if (dataset::OffsetOf(last) >= OffsetLimit(source, fragment)) {
        return AddressError(source, last);
      }
      split.rows[fragment].addRange(dataset::OffsetOf(run.first),
                                    uint64_t{dataset::OffsetOf(last)} + 1);
    }
    return &answers_.emplace(key, std::move(split)).first->second;
  }

  // A segment answers only with rows of the fragments it covers; anything else means its files
  // hold wrong row addresses, which must never be silently dropped or returned. The offsets a
  // segment may answer in `fragment`: none when it does not cover it, the fragment's rows when
  // it is in the version, any when it has left the version (all its rows were deleted).
  uint64_t OffsetLimit(const Source& source, uint32_t fragment) const {
    if (!source.fragments->contains(fragment)) return 0;
    const auto found = physical_rows_.find(fragment);
    return found == physical_rows_.end() ? UINT64_MAX : found->second;
  }

  arrow::Status AddressError(const Source& source, uint64_t address) const {
    const uint32_t fragment = dataset::FragmentOf(address);
    const bool covered = source.fragments->contains(fragment);
    return Corrupt("segment ", source.segment_uuid, " of index '", source.index_name,
                   "' answers with row address ", address, " (fragment ", fragment, ", row ",
                   dataset::OffsetOf(address), "), which ",
                   covered ? "is beyond the fragment's rows" : "is not in a fragment it covers",
                   "; rebuild the index (tessera index create --replace) or drop it");
  }

  // The rows where `leaf` is TRUE, from the best index answering it on `fragment`.
  arrow::Result<Bound> TrueOfLeaf(const Node& leaf, uint32_t fragment) {
    const expr::Column* column = index::LeafColumn(leaf);
    if (column == nullptr) return Bound::Unbounded();
    // The fragment's statistics may prove that no row, or every row, is TRUE: an exact answer
    // that costs nothing, which no index answer can better.
    if (std::optional<Bound> known = StatisticsBound(leaf, *column)) return std::move(*known);
    const Source* best = nullptr;
    index::Capability best_capability;
    for (const Source* source : SourcesFor(column->field_index(), fragment)) {
      const index::Capability capability = source->reader->Assess(leaf);
      if (capability.coverage == index::Coverage::kNone) continue;
      if (CheaperToScan(*source, capability, leaf)) continue;
      if (Better(capability, best_capability)) {
        best = source;
        best_capability = capability;
      }
    }
    if (best == nullptr)
      return Bound::Unbounded();  // none covers the fragment, or a scan is cheaper
    ARROW_ASSIGN_OR_RAISE(const FragmentAnswers* answer, AnswerOf(*best, leaf));
    Bound bound;
    const auto found = answer->rows.find(fragment);
    bound.rows = found == answer->rows.end() ? Roaring() : found->second;
    bound.exact = answer->exact;
    const std::string predicate = PredicateText(leaf);
    bound.uses.push_back(Use{best, predicate});
    bound.how =
        Quote(predicate) + " by '" + best->index_name + "'" + (answer->exact ? "" : " (superset)");
    return bound;
  }

  // An answer touching more than a fraction of a large segment's rows costs more than scanning
  // its fragments (decoding and sorting the addresses, then reading the rows one by one), so the
  // leaf is left to the scan. Small segments answer whatever they can: both ways are cheap.
  bool CheaperToScan(const Source& source, const index::Capability& capability, const Node& leaf) {
    const auto rows = static_cast<double>(source.reader->meta().num_rows());
    const int threads = util::NumThreads();
    const double share = capability.clustered ? shares_.clustered : shares_.scattered;
    if (rows < kMinimumRowsForCostChoice || capability.cost * share * threads <= rows) {
      return false;
    }
    const std::string note =
        "index '" + source.index_name + "' not used for " + Quote(PredicateText(leaf)) +
        ": it would answer about " + std::to_string(static_cast<uint64_t>(capability.cost)) +
        " of the " + std::to_string(static_cast<uint64_t>(rows)) +
        " rows of a segment, more than " +
        (purpose_ == PlanPurpose::kFindRows ? "evaluating the filter" : "a scan") + " on " +
        std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " costs";
    if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) notes_.push_back(note);
    return true;
  }

  // Nodes the planner derives from the filter's (`x = v` for `x != v`, `c IS NULL` for a leaf
  // on c), made once each so that answers to them are cached like the filter's own.
  const Node& EqualOf(const expr::Compare& not_equal) {
    auto& derived = derived_[&not_equal];
    if (derived == nullptr) {
      derived = std::make_shared<expr::Compare>(expr::CompareOp::kEqual, not_equal.left_ptr(),
                                                not_equal.right_ptr(), not_equal.position());
    }
    return *derived;
  }
  const Node& IsNullOf(const expr::Column& column) {
    auto& derived = null_tests_[column.field_index()];
    if (derived == nullptr) {
      auto copy = std::make_shared<expr::Column>(column.name(), column.field_index(), column.type(),
                                                 column.position());
      derived = std::make_shared<expr::IsNull>(std::move(copy), column.position());
    }
    return *derived;
  }

  static void Absorb(Bound* into, Bound from) {
    for (auto& use : from.uses) into->uses.push_back(std::move(use));
    for (auto& note : from.statistics) into->statistics.push_back(std::move(note));
  }

  // The statistics of the fragment at `position` (dataset/fragment_statistics.h), for the
  // leaves planned next; decoded once per snapshot. Statistics that fail their checksum or
  // cannot be decoded are ignored, and explain says so.
  arrow::Status LoadStatistics(int position) {
    ARROW_ASSIGN_OR_RAISE(
        auto decoded,
        snapshot_.Derived<DecodedStatistics>(
            "fragment statistics",
            [&]() -> arrow::Result<std::shared_ptr<const DecodedStatistics>> {
              auto table = std::make_shared<DecodedStatistics>();
              for (const auto& fragment : snapshot_.manifest().fragments()) {
                table->push_back(dataset::DecodeStatistics(fragment, *snapshot_.schema()));
              }
              return table;
            }));
    decoded_statistics_ = decoded;
    const auto& entry = (*decoded)[static_cast<size_t>(position)];
    statistics_ = entry.ok() ? &*entry : nullptr;
    if (!entry.ok()) {
      notes_.push_back(entry.status().message() + "; they are ignored and the fragment is read");
    }
    return arrow::Status::OK();
  }

  // `op` holds between `a` and `b`; nullopt when unknown.
  static std::optional<bool> Holds(expr::CompareOp op, const std::shared_ptr<arrow::Scalar>& a,
                                   const std::shared_ptr<arrow::Scalar>& b) {
    auto result = expr::CompareValues(op, arrow::Datum(a), arrow::Datum(b), 1);
    if (!result.ok()) return std::nullopt;
    std::shared_ptr<arrow::Scalar> value;
    if (result->is_scalar()) {
      value = result->scalar();
    } else {
      auto element = result->make_array()->GetScalar(0);
      if (!element.ok()) return std::nullopt;
      value = *element;
    }
    if (!value->is_valid || value->type->id() != arrow::Type::BOOL) return std::nullopt;
    return static_cast<const arrow::BooleanScalar&>(*value).value;
  }

  // What the fragment's statistics prove about the TRUE rows of `leaf` on `column`: none (an
  // exact empty bound), all (an exact bound of every row), or nothing (nullopt). Only `IS NULL`,
  // `column op literal` (op not `!=`) and BETWEEN are judged; nulls are never TRUE and NaN is
  // TRUE only for `!=`, so the non-NaN range decides.
  std::optional<Bound> StatisticsBound(const Node& leaf, const expr::Column& column) {
    if (statistics_ == nullptr) return std::nullopt;
    const auto found = statistics_->find(column.field_index());
    if (found == statistics_->end()) return std::nullopt;
    const dataset::ColumnRange& range = found->second;
    const uint64_t rows = every_row_.cardinality();
    const bool clean = range.null_count == 0 && range.nan_count == 0;
    std::optional<bool> some;  // some row may be TRUE
    std::optional<bool> all;   // every row is TRUE
    using expr::CompareOp;
    if (leaf.kind() == NodeKind::kIsNull) {
      some = range.null_count > 0;
      all = range.null_count == rows;
    } else if (leaf.kind() == NodeKind::kCompare) {
      // A leaf's comparison has its column on the left (the binder flips `5 > x`, and
      // index::LeafColumn accepts only that shape).
      const auto& compare = leaf.As<expr::Compare>();
      const CompareOp op = compare.op();
      if (compare.right().kind() != NodeKind::kLiteral || op == CompareOp::kNotEqual) {
        return std::nullopt;
      }
      const auto& value = compare.right().As<expr::Literal>().value();
      if (range.min == nullptr) {
        some = false;
      } else if (op == CompareOp::kEqual) {
        const auto low = Holds(CompareOp::kLessEqual, range.min, value);
        const auto high = Holds(CompareOp::kGreaterEqual, range.max, value);
        const auto at_min = Holds(CompareOp::kEqual, range.min, value);
        const auto at_max = Holds(CompareOp::kEqual, range.max, value);
        if (!low || !high || !at_min || !at_max) return std::nullopt;
        some = *low && *high;
        all = clean && *at_min && *at_max;
      } else {
        // `x < v` may hold iff the minimum is below v, holds everywhere iff the maximum is (and
        // so on for the other orders).
        const bool upward = op == CompareOp::kGreater || op == CompareOp::kGreaterEqual;
        const auto may = Holds(op, upward ? range.max : range.min, value);
        const auto every = Holds(op, upward ? range.min : range.max, value);
        if (!may || !every) return std::nullopt;
        some = *may;
        all = clean && *every;
      }
    } else if (leaf.kind() == NodeKind::kBetween) {
      const auto& between = leaf.As<expr::Between>();
      if (range.min == nullptr) {
        some = false;
      } else {
        const auto reaches_low = Holds(CompareOp::kGreaterEqual, range.max, between.lower());
        const auto reaches_high = Holds(CompareOp::kLessEqual, range.min, between.upper());
        const auto above_low = Holds(CompareOp::kGreaterEqual, range.min, between.lower());
        const auto below_high = Holds(CompareOp::kLessEqual, range.max, between.upper());
        if (!reaches_low || !reaches_high || !above_low || !below_high) return std::nullopt;
        some = *reaches_low && *reaches_high;
        all = clean && *above_low && *below_high;
      }
    } else {
      return std::nullopt;
    }
    const std::string predicate = Quote(PredicateText(leaf));
    if (some == false) {
      Bound bound = Bound::Nothing();
      bound.how = predicate + " by statistics";
      bound.statistics.push_back(predicate + " matches no row");
      return bound;
    }
    if (all == true) {
      Bound bound{every_row_, true, {}, predicate + " by statistics", {}};
      bound.statistics.push_back(predicate + " holds on every row");
      return bound;
    }
    return std::nullopt;
  }

  arrow::Result<Bound> BoundOfLeaf(const Node& leaf, bool truth, uint32_t fragment) {
    if (leaf.kind() == NodeKind::kCompare &&
        leaf.As<expr::Compare>().op() == expr::CompareOp::kNotEqual) {
      ARROW_ASSIGN_OR_RAISE(Bound equal,
                            BoundOfLeaf(EqualOf(leaf.As<expr::Compare>()), !truth, fragment));
      return equal;
    }
    if (truth) return TrueOfLeaf(leaf, fragment);
    const expr::Column* column = index::LeafColumn(leaf);
    if (column == nullptr) return Bound::Unbounded();  // column against column, ...
    if (leaf.kind() == NodeKind::kInList && leaf.As<expr::InList>().has_null()) {
      return Bound::Nothing();  // an unmatched non-null row is unknown, never FALSE
    }
    ARROW_ASSIGN_OR_RAISE(Bound positive, TrueOfLeaf(leaf, fragment));
    const bool positive_exact = positive.rows && positive.exact;
    Bound result;
    result.rows = every_row_;
    result.exact = true;
    if (leaf.kind() == NodeKind::kIsNull) {
      // Never unknown: FALSE wherever not TRUE.
      if (!positive_exact) return Bound::Unbounded();
    } else if (UnknownOnlyOnNulls(leaf)) {
      ARROW_ASSIGN_OR_RAISE(Bound nulls, TrueOfLeaf(IsNullOf(*column), fragment));
      const bool nulls_exact = nulls.rows && nulls.exact;
      if (!positive_exact && !nulls_exact) return Bound::Unbounded();
      if (nulls_exact) {
        *result.rows -= *nulls.rows;
        Absorb(&result, std::move(nulls));
      }
      result.exact = positive_exact && nulls_exact;
    } else {
      // Unknown somewhere: FALSE rows lie outside the TRUE rows, not necessarily on all of them.
      if (!positive_exact) return Bound::Unbounded();
      result.exact = false;
    }
    if (positive_exact) *result.rows -= *positive.rows;
    result.how = "NOT " + (positive.how.empty() ? Quote(PredicateText(leaf)) : positive.how);
    Absorb(&result, std::move(positive));
    return result;
  }

  // Intersection (`intersect`) or union of the children's bounds for `truth`.
  arrow::Result<Bound> Combine(const std::vector<expr::NodePtr>& children, bool truth,
                               bool intersect, uint32_t fragment) {
    Bound result = intersect ? Bound::Everything() : Bound::Nothing();
    std::vector<std::string> parts;
    for (const auto& child : children) {
      ARROW_ASSIGN_OR_RAISE(Bound bound, BoundOf(*child, truth, fragment));
      if (intersect) {
        result.exact = result.exact && bound.exact;
        if (!bound.rows) {
          if (!bound.exact) parts.push_back("scan");
          continue;  // no restriction from this child
        }
        if (!result.rows) {
          result.rows = std::move(bound.rows);
        } else {
          *result.rows &= *bound.rows;
        }
      } else {
        if (!bound.rows) return bound.exact ? Bound::Everything() : Bound::Unbounded();
        *result.rows |= *bound.rows;
        result.exact = result.exact && bound.exact;
      }
      parts.push_back(bound.how);
      Absorb(&result, std::move(bound));
    }
    result.how = Parenthesized(parts, intersect ? " AND " : " OR ");
    return result;
  }

  // The rows the filter can be TRUE on. A filter that can fail on data (expr::CanFail) is
  // bounded by its top-level AND terms that cannot, and always rechecked: the failing terms must
  // be evaluated on every live row those terms keep (expr::Filter::Select), so no index answer
  // may narrow them further or skip them (`(i8 + 100) = 1000 OR s = 'abc'` must overflow on
  // every plan, not be answered from an index on s).
  arrow::Result<Bound> RootBound(uint32_t fragment) {
    if (filter_.failing_terms().empty()) return BoundOf(filter_.root(), true, fragment);
    Bound bound = Bound::Unbounded();
    if (!filter_.safe_terms().empty()) {
      ARROW_ASSIGN_OR_RAISE(bound,
                            Combine(filter_.safe_terms(), true, /*intersect=*/true, fragment));
    }
    bound.exact = false;
    return bound;
  }

  arrow::Result<Bound> BoundOf(const Node& node, bool truth, uint32_t fragment) {
    switch (node.kind()) {
      case NodeKind::kLiteral: {
        const auto& literal = node.As<expr::Literal>();
        if (literal.is_null()) return Bound::Nothing();  // unknown is neither TRUE nor FALSE
        if (literal.value()->type->id() != arrow::Type::BOOL) return Bound::Unbounded();
        const bool value = static_cast<const arrow::BooleanScalar&>(*literal.value()).value;
        return value == truth ? Bound::Everything() : Bound::Nothing();
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

  std::string DescribeUses(const Bound& bound) const {
    std::vector<const Source*> order;
    std::map<const Source*, std::vector<std::string>> predicates;
    for (const auto& use : bound.uses) {
      auto& list = predicates[use.source];
      if (list.empty()) order.push_back(use.source);
      if (std::find(list.begin(), list.end(), use.predicate) == list.end()) {
        list.push_back(use.predicate);
      }
    }
    std::string statistics;
    for (const auto& note : bound.statistics) {
      if (statistics.find(note) == std::string::npos) {
        statistics += (statistics.empty() ? "" : ", ") + note;
      }
    }
    if (order.empty()) {
      const bool none = bound.rows && bound.rows->isEmpty();
      if (!statistics.empty()) {
        return std::string(none ? "skipped" : "every live row") + ": fragment statistics show " +
               statistics;
      }
      return none ? "nothing read (the filter is never true here)"
                  : "every live row (the filter is always true)";
    }
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
    if (bound.uses.size() > 1 || bound.how.rfind("NOT ", 0) == 0 || !statistics.empty()) {
      text += "; rows = " + bound.how;
    }
    if (!statistics.empty()) text += "; fragment statistics show " + statistics;
    return text;
  }

  std::string ScanReason(uint32_t fragment) const {
    std::vector<std::string> covering;
    std::vector<std::string> indexed_columns;
    for (int field : indexed_fields_) {
      indexed_columns.push_back(snapshot_.schema()->field(field)->name());
      for (const Source* source : SourcesFor(field, fragment)) {
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
      return covering.size() == 1
                 ? "scan (index " + join(covering) + " covers it but cannot narrow the filter)"
                 : "scan (indexes " + join(covering) + " cover it but cannot narrow the filter)";
    }
    if (!indexed_columns.empty()) {
      return "scan (not covered by an index on " + join(indexed_columns) + ")";
    }
    if (filter_.referenced_columns().empty()) return "scan";
    return "scan (no index answers predicates on " + join(filter_.referenced_columns()) + ")";
  }

  const Snapshot& snapshot_;
  const expr::Filter& filter_;
  const Shares shares_;  // of a large segment's rows an answer may cost, per thread
  // Every fragment's statistics, by manifest position, and those of the fragment being planned
  // (by field; null when it has none usable).
  std::shared_ptr<const DecodedStatistics> decoded_statistics_;
  const std::map<int, dataset::ColumnRange>* statistics_ = nullptr;
  const PlanPurpose purpose_;
  std::vector<std::unique_ptr<Source>> owned_sources_;
  // schema field index → fragment id → the segments serving that column on that fragment
  std::map<int, std::unordered_map<uint32_t, std::vector<const Source*>>> sources_;
  std::set<int> indexed_fields_;
  std::map<std::pair<const index::ScalarSegmentReader*, const Node*>, FragmentAnswers> answers_;
  std::unordered_map<const Node*, std::shared_ptr<const Node>> derived_;
  std::unordered_map<int, std::shared_ptr<const Node>> null_tests_;
  std::unordered_map<uint32_t, uint64_t> physical_rows_;  // of the version's fragments
  std::vector<std::string> notes_;                        // explain: indexes left to the scan
  Roaring every_row_;                                     // of the fragment being planned
};

}  // namespace

bool FilterPlan::any_indexed() const {
  return std::any_of(fragments.begin(), fragments.end(),
                     [](const FragmentFilterPlan& plan) { return plan.candidates.has_value(); });
}

arrow::Result<FilterPlan> PlanFilter(const Snapshot& snapshot, const expr::Filter& filter,
                                     PlanPurpose purpose) {
  FilterPlan plan;
  Planner planner(snapshot, filter, purpose);
  ARROW_RETURN_NOT_OK(planner.Prepare(&plan.notes));
  const int count = snapshot.manifest().fragments_size();
  plan.fragments.reserve(static_cast<size_t>(count));
  for (int position = 0; position < count; ++position) {
    ARROW_ASSIGN_OR_RAISE(auto fragment, planner.PlanFragment(position));
    plan.fragments.push_back(std::move(fragment));
  }
  planner.TakeNotes(&plan.notes);
  return plan;
}

void ExplainFilterPlan(const FilterPlan& plan, std::string_view prefix, Explain* explain) {
  if (explain == nullptr) return;
  for (const auto& note : plan.notes) explain->Add(std::string(prefix) + note);
  struct Group {
    std::vector<uint32_t> fragments;
    bool index_used = false;
    bool exact = true;
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
    it->second.exact = it->second.exact && fragment.exact;
  }
  for (const auto& description : order) {
    const Group& group = groups[description];
    std::string line =
        std::string(prefix) + DescribeFragments(group.fragments) + ": " + description;
    if (group.index_used) {
      line += group.exact ? " (" + std::to_string(group.candidates) + " rows, exact)"
                          : " (" + std::to_string(group.candidates) + " candidates, rechecked)";
    }
    explain->Add(std::move(line));
  }
}

}  // namespace tessera::query
