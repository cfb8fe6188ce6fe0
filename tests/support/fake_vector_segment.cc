#include "support/fake_vector_segment.h"

#include <utility>

#include "tessera/index/vector/ivf_search.h"

namespace tessera::testing {

FakeVectorSegment::FakeVectorSegment(std::string uuid, index::vector::Metric metric, int dim,
                                     int partitions, std::vector<Row> rows, bool approximate)
    : metric_(metric),
      dim_(dim),
      partitions_(partitions),
      rows_(std::move(rows)),
      approximate_(approximate) {
  meta_.set_uuid(std::move(uuid));
}

arrow::Result<std::vector<index::ScoredRow>> FakeVectorSegment::Search(
    const index::VectorQuery& query) const {
  ARROW_RETURN_NOT_OK(index::vector::CheckVectorQuery(query, dim_, meta_.uuid()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    probes_.push_back(query.nprobes);
  }
  index::vector::TopRows top(query);
  for (const Row& row : rows_) {
    if (row.partition >= query.nprobes) continue;
    const float distance = index::vector::Distance(metric_, query.vector, row.vector.data(), dim_);
    top.Offer(&row.address, &distance, 1);
  }
  return std::move(top).Finish();
}

std::vector<int> FakeVectorSegment::probes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return probes_;
}

}  // namespace tessera::testing
