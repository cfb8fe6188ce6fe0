// Fragment statistics: the minimum, maximum, null count and NaN count of each orderable column
// of a fragment, recorded in the manifest when its data file is written (format::
// FragmentStatistics), so that the planner skips fragments no row of which can satisfy a range
// or equality predicate, without an index and without opening the file.
//
// Invariants: the statistics cover every physical row of the fragment (deleted rows too, which
// only widens them); a column is listed only when its type orders values (integers, floats,
// strings up to kMaximumStringBytes at the extremes, dates, timestamps); NaN is neither the
// minimum nor the maximum (no predicate but `!=` is true on NaN, and the planner never uses
// statistics for `!=`). A reader trusts them only after their checksum passes and the column's
// position, name and type match its schema; otherwise it ignores them and reports why.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/scalar.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "tessera/format/manifest.pb.h"

namespace tessera::dataset {

// Strings whose minimum or maximum is longer than this are not listed (the manifest stays
// small).
inline constexpr size_t kMaximumStringBytes = 64;

// Accumulates statistics over the batches of one data file.
class StatisticsCollector {
 public:
  explicit StatisticsCollector(std::shared_ptr<arrow::Schema> schema);

  arrow::Status Add(const arrow::RecordBatch& batch);
  // The statistics of every batch added since the last Finish, and a fresh start.
  arrow::Result<format::FragmentStatistics> Finish();

 private:
  struct Column {
    int position = 0;
    uint64_t null_count = 0;
    uint64_t nan_count = 0;
    std::shared_ptr<arrow::Scalar> min;  // null until a value is seen
    std::shared_ptr<arrow::Scalar> max;
  };
  static Column Fresh(int position) {
    Column column;
    column.position = position;
    return column;
  }
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<Column> columns_;  // the orderable columns of the schema
};

// One column's statistics, decoded.
struct ColumnRange {
  uint64_t null_count = 0;
  uint64_t nan_count = 0;
  std::shared_ptr<arrow::Scalar> min;  // null when the column has no non-null, non-NaN value
  std::shared_ptr<arrow::Scalar> max;
};

// The statistics of `fragment`, by position in `schema`, keeping only columns whose name and
// type match it. Empty when the fragment has none. Corrupt (saying what failed) when they fail
// their checksum or cannot be decoded: the caller ignores them then.
arrow::Result<std::map<int, ColumnRange>> DecodeStatistics(const format::Fragment& fragment,
                                                           const arrow::Schema& schema);

}  // namespace tessera::dataset
