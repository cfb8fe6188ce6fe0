// FakeVectorSegment: a VectorSegmentReader over rows held in memory, for testing what searches
// segments without building one. Each row has a partition; a search probes partitions
// 0 .. nprobes - 1 (not the nearest ones: tests choose where rows lie), scores rows with
// vector::Distance, and keeps the query.k best by the query's accept and range rules
// (index::vector::TopRows), as every IVF reader does. It records the nprobes of each search.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/index/vector_segment.h"

namespace tessera::testing {

class FakeVectorSegment : public index::VectorSegmentReader {
 public:
  struct Row {
    uint64_t address;
    std::vector<float> vector;
    int partition;
  };

  FakeVectorSegment(std::string uuid, index::vector::Metric metric, int dim, int partitions,
                    std::vector<Row> rows, bool approximate = false);

  const format::SegmentMeta& meta() const override { return meta_; }
  index::vector::Metric metric() const override { return metric_; }
  int dim() const override { return dim_; }
  int num_partitions() const override { return partitions_; }
  bool approximate() const override { return approximate_; }
  arrow::Result<std::vector<index::ScoredRow>> Search(
      const index::VectorQuery& query) const override;

  // The nprobes of every search so far, in order.
  std::vector<int> probes() const;

 private:
  format::SegmentMeta meta_;
  index::vector::Metric metric_;
  int dim_;
  int partitions_;
  std::vector<Row> rows_;
  bool approximate_;
  mutable std::mutex mutex_;
  mutable std::vector<int> probes_;
};

}  // namespace tessera::testing
