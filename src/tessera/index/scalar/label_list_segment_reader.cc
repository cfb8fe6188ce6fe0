#include "tessera/index/scalar/label_list_segment_reader.h"

#include <arrow/type_traits.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "tessera/expr/functions.h"
#include "tessera/index/scalar/label_list_family.h"
#include "tessera/index/scalar/posting_segment.h"
#include "tessera/status.h"
#include "tessera/util/radix_sort.h"

namespace tessera::index::scalar {

namespace {

// An integer scalar's value, as signed or unsigned; nullopt for other types.
struct IntegerValue {
  bool is_unsigned = false;
  int64_t signed_value = 0;
  uint64_t unsigned_value = 0;
};

std::optional<IntegerValue> IntegerOf(const arrow::Scalar& value) {
  IntegerValue integer;
  const arrow::Type::type id = value.type->id();
  if (arrow::is_signed_integer(id)) {
    integer.signed_value = *KeyOfScalar<int64_t>(value);
    return integer;
  }
  if (arrow::is_unsigned_integer(id)) {
    integer.is_unsigned = true;
    integer.unsigned_value = *KeyOfScalar<uint64_t>(value);
    return integer;
  }
  return std::nullopt;
}

template <typename Key>
std::optional<int64_t> PositionOf(const std::vector<Key>* keys, const Key& key) {
  if (keys == nullptr) return std::nullopt;
  const auto found = std::lower_bound(keys->begin(), keys->end(), key);
  if (found == keys->end() || key < *found) return std::nullopt;
  return static_cast<int64_t>(found - keys->begin());
}

}  // namespace

arrow::Result<std::unique_ptr<LabelListSegmentReader>> LabelListSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  ARROW_ASSIGN_OR_RAISE(auto postings,
                        OpenPostingSegment(kLabelListFamilyName, segment, directory));
  return std::unique_ptr<LabelListSegmentReader>(new LabelListSegmentReader(std::move(postings)));
}

arrow::Result<std::optional<int64_t>> LabelListSegmentReader::FindElement(
    const arrow::Scalar& value) const {
  if (!value.is_valid) return std::nullopt;
  const auto mismatch = [&]() {
    return InvalidArgument("LABEL_LIST index '", meta().index_name(), "' (segment ", meta().uuid(),
                           ") holds elements of type ", postings_->key_type()->ToString(),
                           " and cannot look up a value of type ", value.type->ToString());
  };
  switch (postings_->domain()) {
    case KeyDomain::kBinary:
      if (!arrow::is_base_binary_like(value.type->id())) return mismatch();
      return PositionOf(postings_->keys<std::string_view>(),
                        static_cast<const arrow::BaseBinaryScalar&>(value).view());
    case KeyDomain::kSigned: {
      const auto integer = IntegerOf(value);
      if (!integer) return mismatch();
      if (integer->is_unsigned) {
        if (integer->unsigned_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return std::nullopt;  // no signed element equals it
        }
        return PositionOf(postings_->keys<int64_t>(),
                          static_cast<int64_t>(integer->unsigned_value));
      }
      return PositionOf(postings_->keys<int64_t>(), integer->signed_value);
    }
    case KeyDomain::kUnsigned: {
      const auto integer = IntegerOf(value);
      if (!integer) return mismatch();
      if (!integer->is_unsigned) {
        if (integer->signed_value < 0) return std::nullopt;  // no unsigned element equals it
        return PositionOf(postings_->keys<uint64_t>(),
                          static_cast<uint64_t>(integer->signed_value));
      }
      return PositionOf(postings_->keys<uint64_t>(), integer->unsigned_value);
    }
    case KeyDomain::kFloat:
      break;
  }
  return mismatch();
}

arrow::Result<std::optional<LabelListSegmentReader::Plan>> LabelListSegmentReader::PlanOf(
    const expr::Node& leaf) const {
  using expr::NodeKind;
  Plan plan;
  switch (leaf.kind()) {
    case NodeKind::kIsNull:
      plan.kind = Plan::Kind::kNulls;
      return plan;
    case NodeKind::kArrayHas: {
      const auto& has = leaf.As<expr::ArrayHas>();
      const bool all = has.match() == expr::ArrayMatch::kAll;
      // array_has_all(col, []) is TRUE on every non-null list, empty ones included, which no
      // posting lists.
      if (all && has.values().empty()) return std::nullopt;
      plan.kind = all ? Plan::Kind::kIntersection : Plan::Kind::kUnion;
      for (const auto& value : has.values()) {
        if (value == nullptr) return std::nullopt;
        ARROW_ASSIGN_OR_RAISE(auto position, FindElement(*value));
        if (position) {
          plan.positions.push_back(*position);
        } else if (all) {
          // A value in no list (or a null, which matches no element): all fails everywhere.
          plan.kind = Plan::Kind::kNothing;
          plan.positions.clear();
          return plan;
        }
      }
      break;
    }
    case NodeKind::kCall: {
      const auto& call = leaf.As<expr::Call>();
      if (call.function().name != "array_contains" || call.arguments().size() != 2 ||
          call.arguments()[0]->kind() != NodeKind::kColumn ||
          call.arguments()[1]->kind() != NodeKind::kLiteral) {
        return std::nullopt;
      }
      plan.kind = Plan::Kind::kUnion;
      ARROW_ASSIGN_OR_RAISE(auto position,
                            FindElement(*call.arguments()[1]->As<expr::Literal>().value()));
      if (position) plan.positions.push_back(*position);
      break;
    }
    default:
      return std::nullopt;
  }
  std::sort(plan.positions.begin(), plan.positions.end());
  plan.positions.erase(std::unique(plan.positions.begin(), plan.positions.end()),
                       plan.positions.end());
  if (plan.positions.empty()) plan.kind = Plan::Kind::kNothing;
  return plan;
}

Capability LabelListSegmentReader::Assess(const expr::Node& leaf) const {
  auto plan = PlanOf(leaf);
  if (!plan.ok() || !plan->has_value()) return {};
  double cost = 0;
  if ((*plan)->kind == Plan::Kind::kNulls) {
    cost = static_cast<double>(PostingDetail(meta(), kDetailNumNulls, meta().num_rows()));
  } else {
    for (int64_t position : (*plan)->positions) {
      cost += static_cast<double>(postings_->count(position));
    }
  }
  return {Coverage::kExact, cost};
}

arrow::Result<RowAddressSet> LabelListSegmentReader::Answer(const expr::Node& leaf) const {
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanOf(leaf));
  if (!plan) {
    return InvalidArgument("LABEL_LIST segment ", meta().uuid(), " of index '", meta().index_name(),
                           "' cannot answer ", leaf.ToString());
  }
  RowAddressSet result;
  result.exact = true;
  switch (plan->kind) {
    case Plan::Kind::kNothing:
      return result;
    case Plan::Kind::kNulls: {
      ARROW_ASSIGN_OR_RAISE(result.rows, postings_->NullRows());
      return result;
    }
    case Plan::Kind::kUnion: {
      for (int64_t position : plan->positions) {
        ARROW_RETURN_NOT_OK(postings_->AppendPostings(position, position + 1, &result.rows));
      }
      if (plan->positions.size() > 1) {
        // A row holding several of the values appears once per value.
        util::RadixSort(&result.rows);
        result.rows.erase(std::unique(result.rows.begin(), result.rows.end()), result.rows.end());
      }
      return result;
    }
    case Plan::Kind::kIntersection: {
      // Smallest postings first, so the running intersection shrinks fastest.
      std::vector<int64_t> order = plan->positions;
      std::sort(order.begin(), order.end(),
                [&](int64_t a, int64_t b) { return postings_->count(a) < postings_->count(b); });
      ARROW_ASSIGN_OR_RAISE(result.rows, postings_->Postings(order.front()));
      for (size_t i = 1; i < order.size() && !result.rows.empty(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto rows, postings_->Postings(order[i]));
        std::vector<uint64_t> both;
        std::set_intersection(result.rows.begin(), result.rows.end(), rows.begin(), rows.end(),
                              std::back_inserter(both));
        result.rows = std::move(both);
      }
      return result;
    }
  }
  return result;
}

}  // namespace tessera::index::scalar
