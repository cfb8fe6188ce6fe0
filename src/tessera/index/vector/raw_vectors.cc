#include "tessera/index/vector/raw_vectors.h"

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/external_files.h"
#include "tessera/io/parallel_reads.h"

#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"

namespace tessera::index::vector {

arrow::Result<RawVectors> RawVectors::Open(const io::Storage& storage,
                                           const std::shared_ptr<arrow::Schema>& schema,
                                           int column_index,
                                           const std::vector<format::Fragment>& fragments,
                                           bool verify_all) {
  RawVectors result;
  const auto& type = schema->field(column_index)->type();
  if (type->id() != arrow::Type::FIXED_SIZE_LIST) {
    return InvalidArgument("column '", schema->field(column_index)->name(),
                           "' is not a vector column");
  }
  result.dim_ = static_cast<const arrow::FixedSizeListType&>(*type).list_size();
  const auto value_type = static_cast<const arrow::FixedSizeListType&>(*type).value_type()->id();
  if (value_type != arrow::Type::FLOAT && value_type != arrow::Type::HALF_FLOAT) {
    return InvalidArgument(
        "column '", schema->field(column_index)->name(), "' holds ",
        static_cast<const arrow::FixedSizeListType&>(*type).value_type()->ToString(),
        ", not float32 or float16");
  }
  for (const auto& source : fragments) {
    const uint32_t id = source.id();
    if (result.fragments_.contains(id)) continue;
    ARROW_ASSIGN_OR_RAISE(auto reader,
                          dataset::FragmentReader::Open(storage, source, schema, {column_index}));
    Fragment fragment;
    fragment.rows_per_batch = reader->rows_per_batch();
    const bool remote = dataset::ReadsFromObjectStorage(storage, source);
    fragment.on_demand = (reader->external() || remote) && !verify_all;
    result.reads_on_demand_ = result.reads_on_demand_ || fragment.on_demand;
    result.remote_ = result.remote_ || (fragment.on_demand && remote);
    for (int b = 0; !fragment.on_demand && b < reader->num_batches(); ++b) {
      ARROW_ASSIGN_OR_RAISE(auto record_batch,
                            verify_all ? reader->ReadBatch(b) : reader->ReadBatchUnverified(b));
      Batch batch;
      batch.verified = verify_all || reader->external();
      batch.array = std::static_pointer_cast<arrow::FixedSizeListArray>(record_batch->column(0));
      const auto& values = *batch.array->values();
      const int64_t first = batch.array->offset() * result.dim_;
      if (values.type_id() == arrow::Type::FLOAT) {
        batch.f32 = values.data()->GetValues<float>(1) + first;
      } else if (values.type_id() == arrow::Type::HALF_FLOAT) {
        batch.f16 = values.data()->GetValues<uint16_t>(1) + first;
      } else {
        return InvalidArgument("column '", schema->field(column_index)->name(), "' holds ",
                               values.type()->ToString(), ", not float32 or float16");
      }
      batch.may_have_nulls = batch.array->null_count() != 0 || values.null_count() != 0;
      fragment.batches.push_back(std::move(batch));
    }
    fragment.reader = std::move(reader);
    result.fragments_.emplace(id, std::move(fragment));
  }
  constexpr uint32_t kMostDenseId = 1 << 16;
  uint32_t largest_id = 0;
  for (const auto& [id, fragment] : result.fragments_) largest_id = std::max(largest_id, id);
  if (!result.fragments_.empty() && largest_id < kMostDenseId) {
    result.fragments_by_id_.assign(largest_id + 1, nullptr);
    for (const auto& [id, fragment] : result.fragments_) result.fragments_by_id_[id] = &fragment;
  }
  return result;
}

const RawVectors::Batch* RawVectors::Locate(const Fragment& fragment, uint32_t offset,
                                            int64_t* row) {
  if (fragment.rows_per_batch == 0) return nullptr;
  // 32-bit division where it fits (offsets are 32-bit): several times quicker than 64-bit.
  uint64_t batch_index = 0;
  uint64_t row_in_batch = offset;
  if (fragment.rows_per_batch <= UINT32_MAX) {
    const auto per_batch = static_cast<uint32_t>(fragment.rows_per_batch);
    batch_index = offset / per_batch;
    row_in_batch = offset % per_batch;
  }
  if (batch_index >= fragment.batches.size()) return nullptr;
  const Batch& batch = fragment.batches[batch_index];
  *row = static_cast<int64_t>(row_in_batch);
  if (*row >= batch.array->length()) return nullptr;
  return &batch;
}

const RawVectors::Batch* RawVectors::Locate(uint64_t address, int64_t* row) const {
  const Fragment* fragment = FindFragment(dataset::FragmentOf(address));
  return fragment == nullptr ? nullptr : Locate(*fragment, dataset::OffsetOf(address), row);
}

void RawVectors::Prefetch(uint64_t address) const {
  int64_t row = 0;
  const Batch* batch = Locate(address, &row);
  if (batch == nullptr || batch->f32 == nullptr) return;
  const char* begin = reinterpret_cast<const char*>(batch->f32 + row * dim_);
  const char* end = begin + sizeof(float) * static_cast<size_t>(dim_);
  constexpr size_t kCacheLine = 64;
  for (const char* line = begin; line < end; line += kCacheLine) __builtin_prefetch(line);
}

void RawVectors::PrefetchFirstLine(uint64_t address) const {
  int64_t row = 0;
  const Batch* batch = Locate(address, &row);
  if (batch != nullptr && batch->f32 != nullptr) __builtin_prefetch(batch->f32 + row * dim_);
}

const float* RawVectors::Fetched::Find(uint64_t address) const {
  auto found = offsets_.find(address);
  if (found == offsets_.end() || found->second < 0) return nullptr;
  return values_.data() + found->second;
}

arrow::Result<RawVectors::Fetched> RawVectors::FetchOnDemand(
    const std::vector<uint64_t>& addresses) const {
  // The runs of addresses inside one batch of a fragment read on demand.
  struct Run {
    uint32_t fragment_id;
    const Fragment* fragment;
    uint64_t batch_index;
    std::vector<uint32_t> rows;  // distinct, ascending, within the batch
  };
  std::vector<Run> runs;
  size_t i = 0;
  while (i < addresses.size()) {
    const uint32_t fragment_id = dataset::FragmentOf(addresses[i]);
    auto found = fragments_.find(fragment_id);
    if (found == fragments_.end() || !found->second.on_demand ||
        found->second.rows_per_batch == 0) {
      ++i;
      continue;
    }
    const Fragment& fragment = found->second;
    Run run{fragment_id, &fragment, dataset::OffsetOf(addresses[i]) / fragment.rows_per_batch, {}};
    const uint64_t first = run.batch_index * fragment.rows_per_batch;
    for (; i < addresses.size() && dataset::FragmentOf(addresses[i]) == fragment_id &&
           dataset::OffsetOf(addresses[i]) / fragment.rows_per_batch == run.batch_index;
         ++i) {
      const auto row = static_cast<uint32_t>(dataset::OffsetOf(addresses[i]) - first);
      if (run.rows.empty() || run.rows.back() != row) run.rows.push_back(row);
    }
    if (run.batch_index < static_cast<uint64_t>(fragment.reader->num_batches())) {
      runs.push_back(std::move(run));
    }
  }
  // One read per batch, in parallel: external files are decoded, and reads of object storage
  // wait on the store (more of them at once than cores).
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches(runs.size());
  const auto read_run = [&](int64_t r) -> arrow::Status {
    const Run& run = runs[static_cast<size_t>(r)];
    ARROW_ASSIGN_OR_RAISE(
        batches[static_cast<size_t>(r)],
        run.fragment->reader->ReadRowsOfBatch(static_cast<int>(run.batch_index), run.rows));
    return arrow::Status::OK();
  };
  ARROW_RETURN_NOT_OK(io::ReadEach(static_cast<int64_t>(runs.size()), remote_, read_run));
  Fetched fetched;
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    const uint64_t first = run.batch_index * run.fragment->rows_per_batch;
    const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*batches[r]->column(0));
    const auto& values = *vectors.values();
    for (uint32_t row : run.rows) {
      const uint64_t address =
          dataset::MakeRowAddress(run.fragment_id, static_cast<uint32_t>(first + row));
      const int64_t begin = (vectors.offset() + row) * dim_;
      bool has_vector = vectors.IsValid(row);
      for (int64_t v = begin; has_vector && values.null_count() != 0 && v < begin + dim_; ++v) {
        has_vector = values.IsValid(v);  // a null element: no vector, as Find says of mapped rows
      }
      if (!has_vector) {
        fetched.offsets_[address] = -1;
        continue;
      }
      const auto start = static_cast<int64_t>(fetched.values_.size());
      fetched.values_.resize(fetched.values_.size() + static_cast<size_t>(dim_));
      float* destination = fetched.values_.data() + start;
      if (values.type_id() == arrow::Type::FLOAT) {
        const float* source = values.data()->GetValues<float>(1) + begin;
        std::copy(source, source + dim_, destination);
      } else {
        simd::ActiveKernels().f16_to_f32(values.data()->GetValues<uint16_t>(1) + begin, dim_,
                                         destination);
      }
      fetched.offsets_[address] = start;
    }
  }
  return fetched;
}

arrow::Result<const float*> RawVectors::Find(uint64_t address, float* scratch,
                                             const Fetched* fetched) const {
  const Fragment* fragment = FindFragment(dataset::FragmentOf(address));
  if (fragment == nullptr) return nullptr;
  if (fragment->on_demand) return fetched == nullptr ? nullptr : fetched->Find(address);
  int64_t row = 0;
  const Batch* located = Locate(*fragment, dataset::OffsetOf(address), &row);
  if (located == nullptr) return nullptr;
  const Batch& batch = *located;
  const auto& values = *batch.array->values();
  const int64_t begin = (batch.array->offset() + row) * dim_;
  if (!batch.verified) {
    const io::VerifiedFile& file = fragment->reader->file();
    const size_t value_bytes = batch.f32 != nullptr ? sizeof(float) : sizeof(uint16_t);
    const uint8_t* row_bytes = batch.f32 != nullptr
                                   ? reinterpret_cast<const uint8_t*>(batch.f32 + row * dim_)
                                   : reinterpret_cast<const uint8_t*>(batch.f16 + row * dim_);
    ARROW_RETURN_NOT_OK(file.VerifyRange(row_bytes, static_cast<int64_t>(value_bytes) * dim_));
    if (batch.may_have_nulls) {
      const auto* list_validity = batch.array->null_bitmap_data();
      const int64_t list_bit = batch.array->offset() + row;
      if (list_validity != nullptr) {
        ARROW_RETURN_NOT_OK(file.VerifyRange(list_validity + list_bit / 8, 1));
      }
      const auto* value_validity = values.null_bitmap_data();
      const int64_t value_bit = values.offset() + begin;
      if (value_validity != nullptr) {
        ARROW_RETURN_NOT_OK(file.VerifyRange(value_validity + value_bit / 8,
                                             (value_bit + dim_ + 7) / 8 - value_bit / 8));
      }
    }
  }
  if (batch.may_have_nulls) {
    if (batch.array->IsNull(row)) return nullptr;
    for (int64_t i = begin; i < begin + dim_; ++i) {
      if (values.IsNull(i)) return nullptr;
    }
  }
  if (batch.f32 != nullptr) return batch.f32 + row * dim_;
  index::vector::simd::ActiveKernels().f16_to_f32(batch.f16 + row * dim_, dim_, scratch);
  return scratch;
}

}  // namespace tessera::index::vector
