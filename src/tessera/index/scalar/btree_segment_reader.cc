#include "tessera/index/scalar/btree_segment_reader.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include "tessera/index/scalar/query_keys.h"
#include "tessera/util/radix_sort.h"

namespace tessera::index::scalar {

class BtreeSegmentReader::Searcher {
 public:
  virtual ~Searcher() = default;
  // Row addresses answering `query` (any kind but kIsNull), in no particular order.
  virtual arrow::Result<std::vector<uint64_t>> Search(const ScalarQuery& query) const = 0;
  // The rows of the pages Search would decode for `query` (kEquals, kIn, kRange), from the
  // lookup layer alone.
  virtual arrow::Result<uint64_t> PageRowsToRead(const ScalarQuery& query) const = 0;
  // How many rows Search would return for `query` (kEquals, kIn, kRange): the pages between
  // the first and the last page a key range meets lie wholly inside it and count by their sizes
  // in the lookup layer; only those two pages are decoded, per key range (an IN list of k values
  // decodes up to 2k pages).
  virtual arrow::Result<uint64_t> Count(const ScalarQuery& query) const = 0;
};

namespace {

template <typename Key>
class TypedSearcher final : public BtreeSegmentReader::Searcher {
 public:
  TypedSearcher(const BtreeSegmentReader& reader, std::vector<Key> firsts, std::vector<Key> lasts)
      : reader_(reader), firsts_(std::move(firsts)), lasts_(std::move(lasts)) {}

  arrow::Result<uint64_t> PageRowsToRead(const ScalarQuery& query) const override {
    uint64_t rows = 0;
    const auto add_pages = [&](const std::optional<Bound<Key>>& lower,
                               const std::optional<Bound<Key>>& upper) {
      const auto [begin, end] = PagesMeeting(lower, upper);
      for (size_t page = begin; page < end; ++page)
        rows += reader_.page_rows(static_cast<int>(page));
    };
    if (query.kind == ScalarQuery::Kind::kRange) {
      ARROW_ASSIGN_OR_RAISE(auto range, QueryRange(query));
      if (!range.has_value()) return 0;
      add_pages(range->lower, range->upper);
      return rows;
    }
    for (const auto& value : query.values) {
      ARROW_ASSIGN_OR_RAISE(auto key, QueryKey(value.get()));
      if (!key.has_value() || IsNanKey(*key)) continue;
      const Bound<Key> bound{*key, true};
      add_pages(bound, bound);
    }
    return rows;
  }

  arrow::Result<uint64_t> Count(const ScalarQuery& query) const override {
    PageCache cache(reader_);
    uint64_t rows = 0;
    const auto count_between = [&](const std::optional<Bound<Key>>& lower,
                                   const std::optional<Bound<Key>>& upper) -> arrow::Status {
      const auto [begin, end] = PagesMeeting(lower, upper);
      for (size_t index = begin; index < end; ++index) {
        if (index > begin && index + 1 < end) {
          rows += reader_.page_rows(static_cast<int>(index));
          continue;
        }
        ARROW_ASSIGN_OR_RAISE(const Page<Key>* page, cache.Get(static_cast<int>(index)));
        const auto [from, to] = KeysBetween(*page, lower, upper);
        rows += static_cast<uint64_t>(to - from);
      }
      return arrow::Status::OK();
    };
    switch (query.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn: {
        // Equality is IN of one value: sorted, distinct keys, each counted once.
        ARROW_ASSIGN_OR_RAISE(auto keys, QueryKeysOf<Key>(kBtreeFamilyName, reader_.meta(),
                                                          *reader_.storage_type(), query));
        for (const Key& key : keys) {
          const Bound<Key> bound{key, true};
          ARROW_RETURN_NOT_OK(count_between(bound, bound));
        }
        return rows;
      }
      case ScalarQuery::Kind::kRange: {
        ARROW_ASSIGN_OR_RAISE(auto range, QueryRange(query));
        if (!range.has_value() || IsEmptyRange(*range)) return 0;
        ARROW_RETURN_NOT_OK(count_between(range->lower, range->upper));
        return rows;
      }
      default:
        return InvalidArgument("BTREE segment ", reader_.meta().uuid(),
                               " counts equalities, IN lists and ranges only");
    }
  }

  arrow::Result<std::vector<uint64_t>> Search(const ScalarQuery& query) const override {
    PageCache cache(reader_);
    std::vector<uint64_t> rows;
    const auto accept_all = [](const Key&) { return true; };
    switch (query.kind) {
      case ScalarQuery::Kind::kIsNull:
        return reader_.NullRows();
      case ScalarQuery::Kind::kIsNotNull: {
        ARROW_RETURN_NOT_OK(Collect(std::nullopt, std::nullopt, accept_all, &cache, &rows));
        if constexpr (kIsFloatKey<Key>) {
          ARROW_ASSIGN_OR_RAISE(auto nans, reader_.NanRows());
          rows.insert(rows.end(), nans.begin(), nans.end());
        }
        return rows;
      }
      case ScalarQuery::Kind::kEquals: {
        if (query.values.size() != 1) {
          return InvalidArgument("an equality query on BTREE segment ", reader_.meta().uuid(),
                                 " takes one value, got ", query.values.size());
        }
        ARROW_ASSIGN_OR_RAISE(auto key, QueryKey(query.values[0].get()));
        if (!key.has_value() || IsNanKey(*key)) return rows;  // equal to nothing
        const Bound<Key> bound{*key, true};
        ARROW_RETURN_NOT_OK(Collect(bound, bound, accept_all, &cache, &rows));
        return rows;
      }
      case ScalarQuery::Kind::kIn:
        return SearchIn(query, &cache);
      case ScalarQuery::Kind::kRange:
        return SearchRange(query, &cache);
    }
    return InvalidArgument("unknown scalar query kind ", static_cast<int>(query.kind));
  }

 private:
  // The last page decoded, so that neighbouring values of one query decode a page once.
  struct PageCache {
    explicit PageCache(const BtreeSegmentReader& owner) : reader(owner) {}

    const BtreeSegmentReader& reader;
    int index = -1;
    Page<Key> page;

    arrow::Result<const Page<Key>*> Get(int wanted) {
      if (index != wanted) {
        index = -1;
        ARROW_ASSIGN_OR_RAISE(auto batch, reader.ReadPage(wanted));
        ARROW_ASSIGN_OR_RAISE(page, DecodePage<Key>(std::move(batch)));
        index = wanted;
      }
      return &page;
    }
  };

  // The key of a query value; nullopt for a null value (which matches nothing).
  arrow::Result<std::optional<Key>> QueryKey(const arrow::Scalar* value) const {
    return QueryKeyOf<Key>(kBtreeFamilyName, reader_.meta(), *reader_.storage_type(), value);
  }

  arrow::Result<std::optional<KeyRange<Key>>> QueryRange(const ScalarQuery& query) const {
    return QueryRangeOf<Key>(kBtreeFamilyName, reader_.meta(), *reader_.storage_type(), query);
  }

  // IN is `= ANY`: each value matches what `=` matches (NaN nothing, -0.0 and 0.0 each other).
  arrow::Result<std::vector<uint64_t>> SearchIn(const ScalarQuery& query, PageCache* cache) const {
    // Sorted so that consecutive values share decoded pages; equal keys (-0.0 and 0.0 among
    // them) are searched once.
    ARROW_ASSIGN_OR_RAISE(auto keys, QueryKeysOf<Key>(kBtreeFamilyName, reader_.meta(),
                                                      *reader_.storage_type(), query));
    std::vector<uint64_t> rows;
    for (const Key& key : keys) {
      const Bound<Key> bound{key, true};
      ARROW_RETURN_NOT_OK(Collect(
          bound, bound, [](const Key&) { return true; }, cache, &rows));
    }
    return rows;
  }

  arrow::Result<std::vector<uint64_t>> SearchRange(const ScalarQuery& query,
                                                   PageCache* cache) const {
    std::vector<uint64_t> rows;
    // A comparison with null is unknown and with NaN false: no row qualifies.
    ARROW_ASSIGN_OR_RAISE(auto range, QueryRange(query));
    if (!range.has_value() || IsEmptyRange(*range)) return rows;
    ARROW_RETURN_NOT_OK(Collect(
        range->lower, range->upper, [](const Key&) { return true; }, cache, &rows));
    return rows;
  }

  // Appends the rows whose key lies between the bounds (absent: unbounded) and passes `accept`.
  template <typename Accept>
  arrow::Status Collect(const std::optional<Bound<Key>>& lower,
                        const std::optional<Bound<Key>>& upper, const Accept& accept,
                        PageCache* cache, std::vector<uint64_t>* rows) const {
    const auto [begin, end] = PagesMeeting(lower, upper);
    for (size_t index = begin; index < end; ++index) {
      ARROW_ASSIGN_OR_RAISE(const Page<Key>* page, cache->Get(static_cast<int>(index)));
      const auto [from, to] = KeysBetween(*page, lower, upper);
      for (auto it = from; it < to; ++it) {
        if (accept(*it)) rows->push_back(page->rows[it - page->keys.begin()]);
      }
    }
    return arrow::Status::OK();
  }

  // The keys of `page` between the bounds (absent: unbounded), as [from, to).
  static auto KeysBetween(const Page<Key>& page, const std::optional<Bound<Key>>& lower,
                          const std::optional<Bound<Key>>& upper) {
    const auto keys_begin = page.keys.begin();
    const auto keys_end = page.keys.end();
    auto from = keys_begin;
    if (lower) {
      from = lower->inclusive ? std::lower_bound(keys_begin, keys_end, lower->key)
                              : std::upper_bound(keys_begin, keys_end, lower->key);
    }
    auto to = keys_end;
    if (upper) {
      to = upper->inclusive ? std::upper_bound(from, keys_end, upper->key)
                            : std::lower_bound(from, keys_end, upper->key);
    }
    return std::make_pair(from, to);
  }

  // The pages [begin, end) whose values may lie between the bounds. Keys ascend across pages,
  // so they are contiguous: those after the last page ending below the interval and before the
  // first page starting above it.
  std::pair<size_t, size_t> PagesMeeting(const std::optional<Bound<Key>>& lower,
                                         const std::optional<Bound<Key>>& upper) const {
    size_t begin = 0;
    size_t end = firsts_.size();
    if (lower) {
      begin = static_cast<size_t>(std::partition_point(lasts_.begin(), lasts_.end(),
                                                       [&](const Key& last) {
                                                         return lower->inclusive
                                                                    ? last < lower->key
                                                                    : !(lower->key < last);
                                                       }) -
                                  lasts_.begin());
    }
    if (upper) {
      end = static_cast<size_t>(std::partition_point(firsts_.begin(), firsts_.end(),
                                                     [&](const Key& first) {
                                                       return upper->inclusive
                                                                  ? !(upper->key < first)
                                                                  : first < upper->key;
                                                     }) -
                                firsts_.begin());
    }
    return {begin, std::max(begin, end)};
  }

  const BtreeSegmentReader& reader_;
  std::vector<Key> firsts_;
  std::vector<Key> lasts_;
};

template <typename Key>
arrow::Result<std::vector<Key>> LookupKeys(const arrow::Array& column) {
  std::vector<Key> keys;
  keys.reserve(static_cast<size_t>(column.length()));
  bool has_null = false;
  ARROW_RETURN_NOT_OK(ForEachKey<Key>(
      column, [&](int64_t, const Key& key) { keys.push_back(key); },
      [&](int64_t) { has_null = true; }));
  if (has_null) return Corrupt("null value in a BTREE lookup layer");
  return keys;
}

template <typename Key>
arrow::Result<std::unique_ptr<BtreeSegmentReader::Searcher>> MakeSearcher(
    const BtreeSegmentReader& reader) {
  ARROW_ASSIGN_OR_RAISE(auto firsts, LookupKeys<Key>(*reader.lookup()->column(0)));
  ARROW_ASSIGN_OR_RAISE(auto lasts, LookupKeys<Key>(*reader.lookup()->column(1)));
  for (size_t i = 0; i < firsts.size(); ++i) {
    const bool ordered = !(lasts[i] < firsts[i]) && !IsNanKey(firsts[i]) && !IsNanKey(lasts[i]) &&
                         (i == 0 || !(firsts[i] < lasts[i - 1]));
    if (!ordered) {
      return Corrupt("the lookup layer of BTREE segment ", reader.meta().uuid(),
                     " is not sorted at page ", i);
    }
  }
  return std::make_unique<TypedSearcher<Key>>(reader, std::move(firsts), std::move(lasts));
}

}  // namespace

BtreeSegmentReader::~BtreeSegmentReader() = default;

arrow::Result<std::unique_ptr<BtreeSegmentReader>> BtreeSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  if (segment.family() != kBtreeFamilyName) {
    return InvalidArgument("segment ", segment.uuid(), " of index '", segment.index_name(),
                           "' is a ", segment.family(), " segment, not a BTREE segment");
  }
  std::unique_ptr<BtreeSegmentReader> reader(new BtreeSegmentReader());
  reader->meta_ = segment;
  reader->directory_ = directory;

  ARROW_ASSIGN_OR_RAISE(reader->pages_, OpenIpcFile(directory, kPagesFile, nullptr));
  const auto& pages_schema = *reader->pages_->schema();
  if (pages_schema.num_fields() != 2) {
    return Corrupt("file ", kPagesFile, " of BTREE segment ", segment.uuid(), " has schema ",
                   pages_schema.ToString());
  }
  reader->storage_ = pages_schema.field(0)->type();
  auto domain = DomainOf(*reader->storage_);
  if (!domain.ok() || reader->storage_->id() == arrow::Type::HALF_FLOAT ||
      !pages_schema.Equals(*PagesSchema(reader->storage_), /*check_metadata=*/false)) {
    return Corrupt("file ", kPagesFile, " of BTREE segment ", segment.uuid(),
                   " has an unexpected schema ", pages_schema.ToString());
  }
  reader->domain_ = *domain;

  const auto lookup_schema = LookupSchema(reader->storage_);
  ARROW_ASSIGN_OR_RAISE(auto lookup, OpenIpcFile(directory, kLookupFile, lookup_schema.get()));
  if (lookup->num_batches() != 1) {
    return Corrupt("file ", kLookupFile, " of BTREE segment ", segment.uuid(), " has ",
                   lookup->num_batches(), " record batches; expected 1");
  }
  ARROW_ASSIGN_OR_RAISE(reader->lookup_, lookup->ReadBatch(0));
  reader->num_pages_ = static_cast<int>(reader->lookup_->num_rows());
  if (reader->num_pages_ != reader->pages_->num_batches() ||
      reader->lookup_->column(2)->null_count() != 0) {
    return Corrupt("BTREE segment ", segment.uuid(), " has ", reader->pages_->num_batches(),
                   " pages but its lookup layer describes ", reader->num_pages_);
  }
  reader->page_sizes_ =
      static_cast<const arrow::UInt32Array&>(*reader->lookup_->column(2)).raw_values();

  const auto address_schema = AddressSchema();
  ARROW_ASSIGN_OR_RAISE(reader->nulls_, OpenIpcFile(directory, kNullsFile, address_schema.get()));
  if (reader->domain_ == KeyDomain::kFloat) {
    ARROW_ASSIGN_OR_RAISE(reader->nans_, OpenIpcFile(directory, kNansFile, address_schema.get()));
  }

  ARROW_ASSIGN_OR_RAISE(reader->searcher_, DispatchKeyDomain(reader->domain_, [&](auto key) {
                          return MakeSearcher<decltype(key)>(*reader);
                        }));
  return reader;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> BtreeSegmentReader::ReadPage(int index) const {
  if (index < 0 || index >= num_pages_) {
    return InvalidArgument("BTREE segment ", meta_.uuid(), " has no page ", index);
  }
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch = pages_->ReadBatch(index);
  }
  if (!batch.ok()) return batch.status();
  if ((*batch)->num_rows() != static_cast<int64_t>(page_sizes_[index])) {
    return Corrupt("page ", index, " of BTREE segment ", meta_.uuid(), " has ",
                   (*batch)->num_rows(), " rows; its lookup entry says ", page_sizes_[index]);
  }
  ++pages_read_;
  return *batch;
}

arrow::Result<std::vector<uint64_t>> BtreeSegmentReader::NullRows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ReadAddressFile(directory_, *nulls_, kNullsFile);
}

arrow::Result<std::vector<uint64_t>> BtreeSegmentReader::NanRows() const {
  if (nans_ == nullptr) return std::vector<uint64_t>();
  std::lock_guard<std::mutex> lock(mutex_);
  return ReadAddressFile(directory_, *nans_, kNansFile);
}

uint64_t BtreeSegmentReader::page_rows(int index) const { return page_sizes_[index]; }

uint64_t BtreeSegmentReader::DetailCount(std::string_view key) const {
  const auto found = meta_.details().find(std::string(key));
  if (found == meta_.details().end()) return meta_.num_rows();
  char* end = nullptr;
  const unsigned long long value = std::strtoull(found->second.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? value : meta_.num_rows();
}

Capability BtreeSegmentReader::Assess(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) return {};
  switch (query->kind) {
    case ScalarQuery::Kind::kIsNull:
      return {Coverage::kExact, static_cast<double>(DetailCount(kDetailNumNulls))};
    case ScalarQuery::Kind::kIsNotNull:
      return {Coverage::kExact, static_cast<double>(meta_.num_rows())};
    default: {
      // A query value of another type is the caller's bug, which Answer reports; cost it as a
      // full read so that another index is preferred.
      auto rows = searcher_->PageRowsToRead(*query);
      return {Coverage::kExact, static_cast<double>(rows.ok() ? *rows : meta_.num_rows())};
    }
  }
}

arrow::Result<RowAddressSet> BtreeSegmentReader::Answer(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) {
    return InvalidArgument("BTREE segment ", meta_.uuid(), " of index '", meta_.index_name(),
                           "' cannot answer ", leaf.ToString());
  }
  return Search(*query);
}

arrow::Result<std::optional<uint64_t>> BtreeSegmentReader::Count(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) return std::nullopt;
  switch (query->kind) {
    case ScalarQuery::Kind::kIsNull: {
      ARROW_ASSIGN_OR_RAISE(auto nulls, NullRows());
      return nulls.size();
    }
    case ScalarQuery::Kind::kIsNotNull:
      return std::nullopt;  // reaches readers as NOT (IS NULL), which the planner derives
    default:
      return searcher_->Count(*query);
  }
}

arrow::Result<RowAddressSet> BtreeSegmentReader::Search(const ScalarQuery& query) const {
  RowAddressSet result;
  result.exact = true;
  ARROW_ASSIGN_OR_RAISE(result.rows, searcher_->Search(query));
  if (!std::is_sorted(result.rows.begin(), result.rows.end())) util::RadixSort(&result.rows);
  result.rows.erase(std::unique(result.rows.begin(), result.rows.end()), result.rows.end());
  return result;
}

}  // namespace tessera::index::scalar
