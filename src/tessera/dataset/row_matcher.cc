#include "tessera/dataset/row_matcher.h"

#include <arrow/util/bit_run_reader.h>

#include <algorithm>
#include <atomic>

#include "tessera/dataset/candidate_batches.h"
#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::dataset {

namespace {

// Runs body(fragment position, batch index) for every batch of `fragments` that may hold a
// candidate, in parallel.
arrow::Status ForEachBatch(const std::vector<FragmentToMatch>& fragments,
                           const std::function<arrow::Status(size_t, int)>& body) {
  std::vector<int64_t> first_of;  // per fragment: the position of its first batch in the list
  int64_t total = 0;
  for (const FragmentToMatch& fragment : fragments) {
    first_of.push_back(total);
    total += fragment.reader->num_batches();
  }
  // After a failure, batches after the first failed one are skipped: they cannot change the
  // error returned (the one of the earliest failing batch, whatever the thread count).
  std::atomic<int64_t> first_failed{total};
  return util::ParallelFor(total, [&](int64_t begin, int64_t end) -> arrow::Status {
    size_t position = static_cast<size_t>(
        std::upper_bound(first_of.begin(), first_of.end(), begin) - first_of.begin() - 1);
    for (int64_t item = begin; item < end; ++item) {
      if (item > first_failed.load(std::memory_order_relaxed)) break;
      while (position + 1 < first_of.size() && first_of[position + 1] <= item) ++position;
      const FragmentToMatch& fragment = fragments[position];
      const auto index = static_cast<int>(item - first_of[position]);
      if (fragment.candidates != nullptr &&
          !BatchHasCandidates(*fragment.candidates,
                              static_cast<uint64_t>(index) * fragment.reader->rows_per_batch(),
                              fragment.reader->rows_per_batch())) {
        continue;
      }
      arrow::Status status = body(position, index);
      if (!status.ok()) {
        int64_t failed = first_failed.load();
        while (item < failed && !first_failed.compare_exchange_weak(failed, item)) {
        }
        return status;
      }
    }
    return arrow::Status::OK();
  });
}

}  // namespace

arrow::Result<std::vector<int>> FilterColumns(const arrow::Schema& schema,
                                              const expr::Filter& filter) {
  std::vector<int> columns;
  for (const auto& name : filter.referenced_columns()) {
    const int index = schema.GetFieldIndex(name);
    if (index < 0) return Error(ErrorKind::kInternal, "filter column ", name, " vanished");
    columns.push_back(index);
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  return columns;
}

arrow::Result<std::vector<int>> ColumnsToMatch(const arrow::Schema& schema,
                                               const expr::Filter& filter) {
  ARROW_ASSIGN_OR_RAISE(auto columns, FilterColumns(schema, filter));
  if (columns.empty()) columns.push_back(0);
  return columns;
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> SelectInBatch(const FragmentToMatch& fragment,
                                                                  int index,
                                                                  const expr::Filter& filter) {
  ARROW_ASSIGN_OR_RAISE(auto batch, fragment.reader->ReadBatch(index));
  GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
  const uint64_t first = static_cast<uint64_t>(index) * fragment.reader->rows_per_batch();
  ARROW_ASSIGN_OR_RAISE(auto live, LiveRows(*fragment.deleted, first, batch->num_rows()));
  return filter.Select(*batch, live.get());
}

arrow::Result<Roaring> FindMatchingRows(const FragmentToMatch& fragment,
                                        const expr::Filter& filter) {
  std::vector<Roaring> per_batch(static_cast<size_t>(fragment.reader->num_batches()));
  ARROW_RETURN_NOT_OK(ForEachBatch({fragment}, [&](size_t, int index) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto selected, SelectInBatch(fragment, index, filter));
    const auto first =
        static_cast<uint32_t>(static_cast<uint64_t>(index) * fragment.reader->rows_per_batch());
    Roaring& rows = per_batch[static_cast<size_t>(index)];
    arrow::internal::SetBitRunReader runs(selected->values()->data(), selected->offset(),
                                          selected->length());
    for (auto run = runs.NextRun(); run.length > 0; run = runs.NextRun()) {
      const uint64_t begin = first + static_cast<uint64_t>(run.position);
      rows.addRange(begin, begin + static_cast<uint64_t>(run.length));
    }
    return arrow::Status::OK();
  }));
  Roaring matches;
  for (Roaring& rows : per_batch) matches |= rows;
  return matches;
}

arrow::Result<Roaring> FindMatchingRows(const io::Storage& storage,
                                        const format::Fragment& fragment,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        const expr::Filter& filter, const Roaring& deleted) {
  ARROW_ASSIGN_OR_RAISE(auto columns, ColumnsToMatch(*schema, filter));
  // The caller's vector, borrowed for the call, so that the reader does not load it again.
  std::shared_ptr<const Roaring> borrowed(std::shared_ptr<const Roaring>(), &deleted);
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        FragmentReader::Open(storage, fragment, schema, columns, borrowed));
  return FindMatchingRows(FragmentToMatch{reader.get(), &deleted}, filter);
}

arrow::Result<uint64_t> CountMatchingRows(const std::vector<FragmentToMatch>& fragments,
                                          const expr::Filter& filter) {
  std::atomic<uint64_t> rows{0};
  ARROW_RETURN_NOT_OK(ForEachBatch(fragments, [&](size_t position, int index) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto selected, SelectInBatch(fragments[position], index, filter));
    rows.fetch_add(static_cast<uint64_t>(selected->true_count()), std::memory_order_relaxed);
    return arrow::Status::OK();
  }));
  return rows.load();
}

}  // namespace tessera::dataset
