#include "tessera/index/scalar/btree_family.h"

#include <algorithm>
#include <queue>
#include <string>

#include "tessera/dataset/dataset.h"
#include "tessera/index/builtin_families.h"
#include "tessera/index/column_batches.h"
#include "tessera/index/merge_inputs.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/btree_layout.h"
#include "tessera/index/scalar/btree_segment_reader.h"
#include "tessera/index/scalar/btree_segment_writer.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

template <typename Key>
struct Entry {
  Key key;
  uint64_t row;
};

template <typename Key>
bool EntryLess(const Key& key_a, uint64_t row_a, const Key& key_b, uint64_t row_b) {
  if (key_a < key_b) return true;
  if (key_b < key_a) return false;
  return row_a < row_b;
}

void SetDetails(const BtreeSegmentStats& stats, const arrow::DataType& storage,
                format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  details[std::string(kDetailPageRows)] = std::to_string(stats.page_rows);
  details[std::string(kDetailNumPages)] = std::to_string(stats.num_pages);
  details[std::string(kDetailNumValues)] = std::to_string(stats.num_values);
  details[std::string(kDetailNumNulls)] = std::to_string(stats.num_nulls);
  details[std::string(kDetailNumNans)] = std::to_string(stats.num_nans);
  details[std::string(kDetailValueType)] = storage.ToString();
  meta->set_num_rows(stats.num_values + stats.num_nulls + stats.num_nans);
}

// Reads the column of every fragment once, sorts the (key, row address) pairs in memory and
// writes them out.
template <typename Key>
arrow::Result<BtreeSegmentStats> BuildTyped(const BuildInput& input,
                                            const std::shared_ptr<arrow::DataType>& storage,
                                            int64_t page_rows, const SegmentDirectory& out) {
  std::vector<Entry<Key>> entries;
  std::vector<uint64_t> nulls;
  std::vector<uint64_t> nans;
  // Binary keys view into the column data (memory-mapped data files): keep the arrays alive.
  std::vector<std::shared_ptr<arrow::Array>> key_arrays;
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      input, kBtreeFamilyName,
      [&](uint32_t fragment_id, uint64_t first, const std::shared_ptr<arrow::Array>& column) {
        const auto address = [&](int64_t i) { return BatchRowAddress(fragment_id, first, i); };
        ARROW_RETURN_NOT_OK(ForEachKey<Key>(
            *column,
            [&](int64_t i, const Key& key) {
              if (IsNanKey(key)) {
                nans.push_back(address(i));
              } else {
                entries.push_back({key, address(i)});
              }
            },
            [&](int64_t i) { nulls.push_back(address(i)); }));
        if constexpr (kIsBinaryKey<Key>) key_arrays.push_back(column);
        return arrow::Status::OK();
      }));
  std::sort(entries.begin(), entries.end(), [](const Entry<Key>& a, const Entry<Key>& b) {
    return EntryLess(a.key, a.row, b.key, b.row);
  });
  std::sort(nulls.begin(), nulls.end());
  std::sort(nans.begin(), nans.end());

  ARROW_ASSIGN_OR_RAISE(auto writer, BtreeSegmentWriter<Key>::Open(out, storage, page_rows));
  for (const auto& entry : entries) ARROW_RETURN_NOT_OK(writer->Append(entry.key, entry.row));
  return writer->Finish(nulls, nans);
}

// A key kept beyond the life of its page.
template <typename Key>
using StoredKey = std::conditional_t<kIsBinaryKey<Key>, std::string, Key>;

// Streams the inputs' sorted runs through a k-way merge into one writer. `fragments[i]` are
// the fragments input i covers: every row it holds must be in one of them, which with strictly
// ascending runs keeps the merged run strictly ascending too (the inputs are disjoint).
template <typename Key>
arrow::Result<BtreeSegmentStats> MergeTyped(
    const std::vector<std::unique_ptr<BtreeSegmentReader>>& readers,
    const std::vector<Roaring>& fragments, const std::shared_ptr<arrow::DataType>& storage,
    int64_t page_rows, const SegmentDirectory& out) {
  struct Cursor {
    const BtreeSegmentReader* reader = nullptr;
    const Roaring* fragments = nullptr;
    int next_page = 0;
    Page<Key> page;
    int64_t position = 0;
    // The entry before the first of `page`, to check the order across pages.
    bool has_previous = false;
    StoredKey<Key> previous_key{};
    uint64_t previous_row = 0;

    // Moves to the next entry, decoding pages as needed; false at the end of the run. Corrupt,
    // naming the segment and its pages file, when a page cannot be read or the entry breaks
    // the run's order or lies outside the segment's fragments (a damaged page).
    arrow::Result<bool> Settle() {
      while (position >= page.size()) {
        if (next_page >= reader->num_pages()) return false;
        if (page.size() > 0) {
          has_previous = true;
          previous_key = StoredKey<Key>(page.keys.back());
          previous_row = page.rows[page.size() - 1];
        }
        auto batch = reader->ReadPage(next_page++);
        if (!batch.ok()) return SegmentFileError(batch.status(), reader->meta(), kPagesFile);
        auto decoded = DecodePage<Key>(std::move(*batch));
        if (!decoded.ok()) return SegmentFileError(decoded.status(), reader->meta(), kPagesFile);
        page = std::move(*decoded);
        position = 0;
      }
      bool ordered = true;
      if (position > 0) {
        ordered = EntryLess(page.keys[static_cast<size_t>(position - 1)], page.rows[position - 1],
                            key(), row());
      } else if (has_previous) {
        ordered = EntryLess(Key(previous_key), previous_row, key(), row());
      }
      std::string problem;
      if (IsNanKey(key())) {
        problem = "holds a NaN value in its sorted run";
      } else if (!ordered) {
        problem = "holds entries out of order";
      } else if (!fragments->contains(dataset::FragmentOf(row()))) {
        problem = "holds row address " + std::to_string(row()) + " of fragment " +
                  std::to_string(dataset::FragmentOf(row())) + ", which the segment does not cover";
      }
      if (problem.empty()) return true;
      return SegmentFileError(Corrupt("page ", next_page - 1, " (entry ", position, ") ", problem),
                              reader->meta(), kPagesFile);
    }
    const Key& key() const { return page.keys[static_cast<size_t>(position)]; }
    uint64_t row() const { return page.rows[position]; }
  };

  std::vector<Cursor> cursors;
  cursors.reserve(readers.size());
  for (size_t i = 0; i < readers.size(); ++i) {
    Cursor cursor;
    cursor.reader = readers[i].get();
    cursor.fragments = &fragments[i];
    cursors.push_back(std::move(cursor));
  }
  const auto later = [&](size_t a, size_t b) {
    return EntryLess(cursors[b].key(), cursors[b].row(), cursors[a].key(), cursors[a].row());
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cursors.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(bool valid, cursors[i].Settle());
    if (valid) heap.push(i);
  }

  ARROW_ASSIGN_OR_RAISE(auto writer, BtreeSegmentWriter<Key>::Open(out, storage, page_rows));
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Cursor& cursor = cursors[i];
    ARROW_RETURN_NOT_OK(writer->Append(cursor.key(), cursor.row()));
    ++cursor.position;
    ARROW_ASSIGN_OR_RAISE(bool valid, cursor.Settle());
    if (valid) heap.push(i);
  }

  std::vector<uint64_t> nulls;
  std::vector<uint64_t> nans;
  // Rows of one input's list, which must lie in its fragments (so the lists stay disjoint).
  auto append_rows = [&](size_t input, arrow::Result<std::vector<uint64_t>> rows,
                         std::string_view file, std::vector<uint64_t>* all) -> arrow::Status {
    const format::SegmentMeta& meta = readers[input]->meta();
    if (!rows.ok()) return SegmentFileError(rows.status(), meta, file);
    for (uint64_t row : *rows) {
      if (!fragments[input].contains(dataset::FragmentOf(row))) {
        return SegmentFileError(
            Corrupt("row address ", row, " of fragment ", dataset::FragmentOf(row),
                    ", which the segment does not cover"),
            meta, file);
      }
    }
    all->insert(all->end(), rows->begin(), rows->end());
    return arrow::Status::OK();
  };
  for (size_t i = 0; i < readers.size(); ++i) {
    ARROW_RETURN_NOT_OK(append_rows(i, readers[i]->NullRows(), kNullsFile, &nulls));
    ARROW_RETURN_NOT_OK(append_rows(i, readers[i]->NanRows(), kNansFile, &nans));
  }
  std::sort(nulls.begin(), nulls.end());
  std::sort(nans.begin(), nans.end());
  return writer->Finish(nulls, nans);
}

}  // namespace

std::string_view BtreeFamily::name() const { return kBtreeFamilyName; }

arrow::Result<Params> BtreeFamily::Validate(const arrow::Field& column,
                                            const Params& params) const {
  ARROW_RETURN_NOT_OK(BtreeStorageType(column.name(), column.type()).status());
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, kBtreeFamilyName, {kDetailPageRows}));
  ARROW_ASSIGN_OR_RAISE(int64_t page_rows,
                        IntegerParam(params, kBtreeFamilyName, kDetailPageRows, kDefaultPageRows,
                                     kMinPageRows, kMaxPageRows));
  return Params{{std::string(kDetailPageRows), std::to_string(page_rows)}};
}

arrow::Result<format::SegmentMeta> BtreeFamily::Build(const BuildInput& input, const Model*,
                                                      const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "a BTREE build"));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(int64_t page_rows,
                        IntegerParam(params, kBtreeFamilyName, kDetailPageRows, kDefaultPageRows,
                                     kMinPageRows, kMaxPageRows));
  ARROW_ASSIGN_OR_RAISE(auto storage, BtreeStorageType(field->name(), field->type()));
  ARROW_ASSIGN_OR_RAISE(KeyDomain domain, DomainOf(*storage));
  auto stats = DispatchKeyDomain(
      domain, [&](auto key) { return BuildTyped<decltype(key)>(input, storage, page_rows, out); });
  if (!stats.ok()) {
    return WithBuildContext(stats.status(), kBtreeFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetDetails(*stats, *storage, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kBtreeFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> BtreeFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked, CheckMergeInputs(kBtreeFamilyName, inputs, dirs, out));
  const format::SegmentMeta& head = inputs.front();
  std::vector<std::unique_ptr<BtreeSegmentReader>> readers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto opened = BtreeSegmentReader::Open(inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], "");
    auto reader = std::move(*opened);
    if (!readers.empty() && !reader->storage_type()->Equals(*readers.front()->storage_type())) {
      return MergedTypeMismatch(kBtreeFamilyName, inputs[i], reader->storage_type()->ToString(),
                                head, readers.front()->storage_type()->ToString());
    }
    readers.push_back(std::move(reader));
  }
  Params page_params;
  auto found = head.details().find(std::string(kDetailPageRows));
  if (found != head.details().end()) page_params[std::string(kDetailPageRows)] = found->second;
  ARROW_ASSIGN_OR_RAISE(int64_t page_rows,
                        IntegerParam(page_params, kBtreeFamilyName, kDetailPageRows,
                                     kDefaultPageRows, kMinPageRows, kMaxPageRows));

  const auto storage = readers.front()->storage_type();
  auto stats = DispatchKeyDomain(readers.front()->domain(), [&](auto key) {
    return MergeTyped<decltype(key)>(readers, checked.covered, storage, page_rows, out);
  });
  if (!stats.ok()) {
    return WithMergeContext(stats.status(), kBtreeFamilyName, head);
  }

  format::SegmentMeta meta;
  SetDetails(*stats, *storage, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, kBtreeFamilyName, out, &meta));
  return meta;
}

arrow::Result<std::unique_ptr<SegmentReader>> BtreeFamily::Open(const format::SegmentMeta& segment,
                                                                const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, BtreeSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> BtreeFamily::RequiredFiles(const format::SegmentMeta& segment) const {
  std::vector<std::string_view> ipc_files{kPagesFile, kLookupFile, kNullsFile};
  // The segment's value type decides whether the reader opens the NaN list (SetDetails above).
  auto value_type = segment.details().find(std::string(kDetailValueType));
  if (value_type != segment.details().end() &&
      (value_type->second == arrow::float32()->ToString() ||
       value_type->second == arrow::float64()->ToString())) {
    ipc_files.push_back(kNansFile);
  }
  // Each Arrow IPC file with its block checksums.
  std::vector<std::string> files;
  for (std::string_view file : ipc_files) {
    for (auto& path : io::FileAndChecksums(file)) files.push_back(std::move(path));
  }
  return files;
}

arrow::Status BtreeFamily::Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                                  const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kBtreeFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(auto reader, BtreeSegmentReader::Open(segment, dir));
  ARROW_ASSIGN_OR_RAISE(auto expected, BtreeStorageType(field->name(), field->type()));
  if (!reader->storage_type()->Equals(*expected)) {
    return HeldTypeMismatch(kBtreeFamilyName, segment, reader->storage_type()->ToString(), *field,
                            "is indexed as", expected->ToString());
  }
  return arrow::Status::OK();
}

std::unique_ptr<IndexFamily> MakeBtreeFamily() { return std::make_unique<BtreeFamily>(); }

}  // namespace tessera::index::scalar
