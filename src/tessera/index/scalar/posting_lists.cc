#include "tessera/index/scalar/posting_lists.h"

#include <algorithm>
#include <queue>

#include "tessera/dataset/dataset.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

std::string PostingFilePath(const SegmentDirectory& directory, std::string_view name) {
  return directory.path + "/" + std::string(name);
}

}  // namespace

PostingListFiles PostingListFiles::WithPrefix(std::string_view prefix) {
  PostingListFiles files;
  files.keys = std::string(prefix) + files.keys;
  files.postings = std::string(prefix) + files.postings;
  files.nulls = std::string(prefix) + files.nulls;
  return files;
}

std::vector<std::string> PostingListFiles::WithChecksums() const {
  std::vector<std::string> all;
  for (const std::string* file : {&keys, &postings, &nulls}) {
    for (auto& path : io::FileAndChecksums(*file)) all.push_back(std::move(path));
  }
  return all;
}

std::shared_ptr<arrow::Schema> PostingKeysSchema(const std::shared_ptr<arrow::DataType>& key_type) {
  return arrow::schema({arrow::field("key", key_type, /*nullable=*/false),
                        arrow::field("count", arrow::uint64(), /*nullable=*/false)});
}

// ---------------------------------------------------------------------------------------------
// Writer

template <typename Key>
arrow::Result<std::unique_ptr<PostingListWriter<Key>>> PostingListWriter<Key>::Open(
    const SegmentDirectory& out, const PostingListFiles& files,
    const std::shared_ptr<arrow::DataType>& key_type, std::string_view family) {
  ARROW_ASSIGN_OR_RAISE(auto appender, KeyAppender<Key>::Make(key_type));
  std::unique_ptr<PostingListWriter> writer(
      new PostingListWriter(out, files, key_type, std::string(family), appender));
  ARROW_ASSIGN_OR_RAISE(writer->keys_file_,
                        IpcFileWriter::Open(out, files.keys, PostingKeysSchema(key_type)));
  ARROW_ASSIGN_OR_RAISE(writer->postings_file_,
                        IpcFileWriter::Open(out, files.postings, AddressSchema()));
  ARROW_ASSIGN_OR_RAISE(writer->keys_, arrow::MakeBuilder(key_type));
  return writer;
}

template <typename Key>
arrow::Status PostingListWriter<Key>::Append(const Key& key, const uint64_t* rows, size_t count) {
  if (IsNanKey(key) || (has_previous_ && !(Key(previous_key_) < key))) {
    return Error(ErrorKind::kInternal, "keys of the posting lists of ", family_, " segment ",
                 out_.uuid, " arrived out of order (key ", stats_.num_keys, ")");
  }
  if (count == 0) {
    return Error(ErrorKind::kInternal, "key ", stats_.num_keys, " of ", family_, " segment ",
                 out_.uuid, " has no rows");
  }
  for (size_t i = 1; i < count; ++i) {
    if (rows[i - 1] >= rows[i]) {
      return Error(ErrorKind::kInternal, "rows of key ", stats_.num_keys, " of ", family_,
                   " segment ", out_.uuid, " arrived out of order");
    }
  }
  has_previous_ = true;
  previous_key_ = OwnedKey<Key>(key);
  ARROW_RETURN_NOT_OK(appender_.Append(keys_.get(), key));
  ARROW_RETURN_NOT_OK(counts_.Append(count));
  ++stats_.num_keys;
  stats_.num_postings += count;
  if (counts_.length() >= kKeyBatchRows) ARROW_RETURN_NOT_OK(FlushKeys());
  // Postings batches are cut at exactly kPostingBatchRows addresses (see the header).
  size_t done = 0;
  while (done < count) {
    const size_t room = static_cast<size_t>(kPostingBatchRows - postings_.length());
    const size_t take = std::min(room, count - done);
    ARROW_RETURN_NOT_OK(postings_.AppendValues(rows + done, static_cast<int64_t>(take)));
    done += take;
    if (postings_.length() >= kPostingBatchRows) ARROW_RETURN_NOT_OK(FlushPostings());
  }
  return arrow::Status::OK();
}

template <typename Key>
arrow::Status PostingListWriter<Key>::FlushKeys() {
  const int64_t size = counts_.length();
  if (size == 0) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto keys, keys_->Finish());
  ARROW_ASSIGN_OR_RAISE(auto counts, counts_.Finish());
  return keys_file_->Write(
      *arrow::RecordBatch::Make(PostingKeysSchema(key_type_), size, {keys, counts}));
}

template <typename Key>
arrow::Status PostingListWriter<Key>::FlushPostings() {
  const int64_t size = postings_.length();
  if (size == 0) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto rows, postings_.Finish());
  return postings_file_->Write(*arrow::RecordBatch::Make(AddressSchema(), size, {rows}));
}

template <typename Key>
arrow::Result<PostingListStats> PostingListWriter<Key>::Finish(
    const std::vector<uint64_t>& null_rows) {
  for (size_t i = 1; i < null_rows.size(); ++i) {
    if (null_rows[i - 1] >= null_rows[i]) {
      return Error(ErrorKind::kInternal, "null rows of ", family_, " segment ", out_.uuid,
                   " are not strictly ascending");
    }
  }
  ARROW_RETURN_NOT_OK(FlushKeys());
  ARROW_RETURN_NOT_OK(FlushPostings());
  ARROW_RETURN_NOT_OK(keys_file_->Close());
  ARROW_RETURN_NOT_OK(postings_file_->Close());
  ARROW_RETURN_NOT_OK(WriteAddressFile(out_, files_.nulls, null_rows));
  stats_.num_nulls = null_rows.size();
  return stats_;
}

template class PostingListWriter<int64_t>;
template class PostingListWriter<uint64_t>;
template class PostingListWriter<double>;
template class PostingListWriter<std::string_view>;

template <typename Key>
arrow::Result<PostingListStats> WritePostingEntries(
    const SegmentDirectory& out, const PostingListFiles& files,
    const std::shared_ptr<arrow::DataType>& key_type, std::string_view family,
    std::vector<PostingEntry<Key>> entries, std::vector<uint64_t> null_rows) {
  std::sort(entries.begin(), entries.end(),
            [](const PostingEntry<Key>& a, const PostingEntry<Key>& b) {
              if (a.key < b.key) return true;
              if (b.key < a.key) return false;
              return a.row < b.row;
            });
  std::sort(null_rows.begin(), null_rows.end());
  null_rows.erase(std::unique(null_rows.begin(), null_rows.end()), null_rows.end());
  ARROW_ASSIGN_OR_RAISE(auto writer, PostingListWriter<Key>::Open(out, files, key_type, family));
  std::vector<uint64_t> rows;
  size_t begin = 0;
  while (begin < entries.size()) {
    size_t end = begin;
    rows.clear();
    // Equal keys are adjacent after the sort; -0.0 and 0.0 are one key.
    while (end < entries.size() && !(entries[begin].key < entries[end].key)) {
      if (rows.empty() || rows.back() != entries[end].row) rows.push_back(entries[end].row);
      ++end;
    }
    ARROW_RETURN_NOT_OK(writer->Append(entries[begin].key, rows));
    begin = end;
  }
  return writer->Finish(null_rows);
}

template arrow::Result<PostingListStats> WritePostingEntries<int64_t>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<int64_t>>, std::vector<uint64_t>);
template arrow::Result<PostingListStats> WritePostingEntries<uint64_t>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<uint64_t>>, std::vector<uint64_t>);
template arrow::Result<PostingListStats> WritePostingEntries<double>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<double>>, std::vector<uint64_t>);
template arrow::Result<PostingListStats> WritePostingEntries<std::string_view>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<std::string_view>>, std::vector<uint64_t>);

// ---------------------------------------------------------------------------------------------
// Reader

namespace {

// Opens one file of the segment through its block checksums, checking its schema.
arrow::Result<std::unique_ptr<io::VerifiedIpcFile>> OpenPostingFile(
    const format::SegmentMeta& segment, const SegmentDirectory& directory, std::string_view name,
    const arrow::Schema* expected) {
  ARROW_ASSIGN_OR_RAISE(
      auto file, io::VerifiedIpcFile::Open(
                     *directory.storage, PostingFilePath(directory, name),
                     Concat("file ", name, " of ", segment.family(), " segment ", segment.uuid()),
                     "rebuild the index (tessera index create --replace) or drop it"));
  if (expected != nullptr && !file->schema()->Equals(*expected, /*check_metadata=*/false)) {
    return Corrupt("file ", name, " of ", segment.family(), " segment ", segment.uuid(),
                   " has schema ", file->schema()->ToString(), "; expected ", expected->ToString());
  }
  return file;
}

// Decodes the keys of one keys batch into `keys`.
template <typename Key>
arrow::Status DecodeKeys(const arrow::Array& column, std::vector<Key>* keys) {
  bool has_null = false;
  ARROW_RETURN_NOT_OK(ForEachKey<Key>(
      column, [&](int64_t, const Key& key) { keys->push_back(key); },
      [&](int64_t) { has_null = true; }));
  if (has_null) return Corrupt("a null key");
  return arrow::Status::OK();
}

}  // namespace

arrow::Status PostingListReader::Malformed(std::string_view file,
                                           const std::string& problem) const {
  return Corrupt("file ", file, " of ", meta_.family(), " segment ", meta_.uuid(), " (index '",
                 meta_.index_name(), "') ", problem,
                 "; rebuild the index (tessera index create --replace) or drop it");
}

arrow::Result<std::unique_ptr<PostingListReader>> PostingListReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory,
    const PostingListFiles& files) {
  std::unique_ptr<PostingListReader> reader(new PostingListReader());
  reader->meta_ = segment;
  reader->directory_ = directory;
  reader->files_ = files;
  ARROW_ASSIGN_OR_RAISE(reader->fragments_, DecodeFragmentBitmap(segment));

  ARROW_ASSIGN_OR_RAISE(auto keys_file, OpenPostingFile(segment, directory, files.keys, nullptr));
  const auto& keys_schema = *keys_file->schema();
  if (keys_schema.num_fields() != 2) {
    return reader->Malformed(files.keys, "has schema " + keys_schema.ToString());
  }
  reader->key_type_ = keys_schema.field(0)->type();
  auto domain = DomainOf(*reader->key_type_);
  if (!domain.ok() || reader->key_type_->id() == arrow::Type::HALF_FLOAT ||
      !keys_schema.Equals(*PostingKeysSchema(reader->key_type_), /*check_metadata=*/false)) {
    return reader->Malformed(files.keys, "has an unexpected schema " + keys_schema.ToString());
  }
  reader->domain_ = *domain;

  // Keys, counts and their prefix sums.
  arrow::Status decoded = DispatchKeyDomain(reader->domain_, [&](auto key) -> arrow::Status {
    using Key = decltype(key);
    std::vector<Key> keys;
    for (int i = 0; i < keys_file->num_batches(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto batch, keys_file->ReadBatch(i));
      auto status = DecodeKeys<Key>(*batch->column(0), &keys);
      if (!status.ok()) return reader->Malformed(files.keys, "holds " + status.message());
      const auto& counts = *batch->column(1);
      if (counts.null_count() != 0) return reader->Malformed(files.keys, "holds a null count");
      const auto* values = static_cast<const arrow::UInt64Array&>(counts).raw_values();
      reader->counts_.insert(reader->counts_.end(), values, values + counts.length());
      reader->key_batches_.push_back(std::move(batch));
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      if (IsNanKey(keys[i]) || (i > 0 && !(keys[i - 1] < keys[i]))) {
        return reader->Malformed(files.keys, "holds keys out of order at key " + std::to_string(i));
      }
    }
    reader->keys_ = std::move(keys);
    return arrow::Status::OK();
  });
  ARROW_RETURN_NOT_OK(decoded);

  reader->offsets_.reserve(reader->counts_.size() + 1);
  reader->offsets_.push_back(0);
  for (size_t i = 0; i < reader->counts_.size(); ++i) {
    const uint64_t count = reader->counts_[i];
    const uint64_t total = reader->offsets_.back();
    if (count == 0 || total + count < total) {
      return reader->Malformed(
          files.keys, "gives key " + std::to_string(i) + " a count of " + std::to_string(count));
    }
    reader->offsets_.push_back(total + count);
  }
  reader->num_postings_ = reader->offsets_.back();

  const auto address_schema = AddressSchema();
  ARROW_ASSIGN_OR_RAISE(reader->postings_,
                        OpenPostingFile(segment, directory, files.postings, address_schema.get()));
  const uint64_t expected_batches =
      (reader->num_postings_ + kPostingBatchRows - 1) / static_cast<uint64_t>(kPostingBatchRows);
  if (static_cast<uint64_t>(reader->postings_->num_batches()) != expected_batches) {
    // Either file may be the damaged one: name both.
    return reader->Malformed(files.keys, "counts " + std::to_string(reader->num_postings_) +
                                             " postings, which file " + files.postings +
                                             " would hold in " + std::to_string(expected_batches) +
                                             " record batches; it has " +
                                             std::to_string(reader->postings_->num_batches()));
  }
  ARROW_ASSIGN_OR_RAISE(reader->nulls_,
                        OpenPostingFile(segment, directory, files.nulls, address_schema.get()));
  return reader;
}

arrow::Result<std::shared_ptr<arrow::Scalar>> PostingListReader::KeyAt(int64_t position) const {
  if (position < 0 || position >= num_keys()) {
    return InvalidArgument(meta_.family(), " segment ", meta_.uuid(), " has no key ", position);
  }
  int64_t offset = position;
  for (const auto& batch : key_batches_) {
    if (offset < batch->num_rows()) return batch->column(0)->GetScalar(offset);
    offset -= batch->num_rows();
  }
  return InvalidArgument(meta_.family(), " segment ", meta_.uuid(), " has no key ", position);
}

namespace {

// The key of a query value; nullopt for null and NaN values, which equal no key.
template <typename Key>
arrow::Result<std::optional<Key>> QueryKeyOf(const arrow::Scalar& value,
                                             const arrow::DataType& key_type,
                                             const format::SegmentMeta& meta) {
  if (!value.is_valid) return std::nullopt;
  if (!QueryTypeMatches(*value.type, key_type)) {
    return InvalidArgument(meta.family(), " index '", meta.index_name(), "' (segment ", meta.uuid(),
                           ") holds keys of type ", key_type.ToString(),
                           " and cannot compare them with a query value of type ",
                           value.type->ToString(), "; cast the value to the column's type");
  }
  ARROW_ASSIGN_OR_RAISE(Key key, KeyOfScalar<Key>(value));
  if (IsNanKey(key)) return std::nullopt;
  return key;
}

}  // namespace

arrow::Result<std::optional<int64_t>> PostingListReader::Find(const arrow::Scalar& value) const {
  return DispatchKeyDomain(domain_, [&](auto tag) -> arrow::Result<std::optional<int64_t>> {
    using Key = decltype(tag);
    ARROW_ASSIGN_OR_RAISE(auto key, QueryKeyOf<Key>(value, *key_type_, meta_));
    if (!key) return std::nullopt;
    const auto& keys = std::get<std::vector<Key>>(keys_);
    const auto found = std::lower_bound(keys.begin(), keys.end(), *key);
    if (found == keys.end() || *key < *found) return std::nullopt;
    return static_cast<int64_t>(found - keys.begin());
  });
}

arrow::Result<std::pair<int64_t, int64_t>> PostingListReader::Range(
    const std::optional<ScalarBound>& lower, const std::optional<ScalarBound>& upper) const {
  using Positions = std::pair<int64_t, int64_t>;
  return DispatchKeyDomain(domain_, [&](auto tag) -> arrow::Result<Positions> {
    using Key = decltype(tag);
    const auto& keys = std::get<std::vector<Key>>(keys_);
    int64_t begin = 0;
    int64_t end = static_cast<int64_t>(keys.size());
    if (lower) {
      if (lower->value == nullptr) return InvalidArgument("a range query lacks its lower bound");
      ARROW_ASSIGN_OR_RAISE(auto key, QueryKeyOf<Key>(*lower->value, *key_type_, meta_));
      if (!key) return Positions{0, 0};
      const auto it = lower->inclusive ? std::lower_bound(keys.begin(), keys.end(), *key)
                                       : std::upper_bound(keys.begin(), keys.end(), *key);
      begin = static_cast<int64_t>(it - keys.begin());
    }
    if (upper) {
      if (upper->value == nullptr) return InvalidArgument("a range query lacks its upper bound");
      ARROW_ASSIGN_OR_RAISE(auto key, QueryKeyOf<Key>(*upper->value, *key_type_, meta_));
      if (!key) return Positions{0, 0};
      const auto it = upper->inclusive ? std::upper_bound(keys.begin(), keys.end(), *key)
                                       : std::lower_bound(keys.begin(), keys.end(), *key);
      end = static_cast<int64_t>(it - keys.begin());
    }
    if (end < begin) return Positions{0, 0};
    return Positions{begin, end};
  });
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> PostingListReader::ReadPostingBatch(
    int index) const {
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_index_ == index) return cached_batch_;
    batch = postings_->ReadBatch(index);
  }
  if (!batch.ok()) return batch.status();
  const uint64_t first = static_cast<uint64_t>(index) * kPostingBatchRows;
  const uint64_t expected =
      std::min<uint64_t>(kPostingBatchRows, num_postings_ - std::min(first, num_postings_));
  if (static_cast<uint64_t>((*batch)->num_rows()) != expected ||
      (*batch)->column(0)->null_count() != 0) {
    // Either file may be the damaged one: name both.
    return Malformed(files_.postings, "has a record batch " + std::to_string(index) + " of " +
                                          std::to_string((*batch)->num_rows()) +
                                          " rows (or null rows) where the counts of file " +
                                          files_.keys + " need " + std::to_string(expected));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  cached_index_ = index;
  cached_batch_ = *batch;
  return *batch;
}

arrow::Status PostingListReader::CheckRun(const uint64_t* rows, size_t count,
                                          int64_t position) const {
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 && rows[i - 1] >= rows[i]) {
      return Malformed(files_.postings,
                       "holds the rows of key " + std::to_string(position) + " out of order");
    }
    if (!fragments_.contains(dataset::FragmentOf(rows[i]))) {
      return Malformed(files_.postings, "holds row address " + std::to_string(rows[i]) +
                                            " of fragment " +
                                            std::to_string(dataset::FragmentOf(rows[i])) +
                                            ", which the segment does not cover");
    }
  }
  return arrow::Status::OK();
}

arrow::Status PostingListReader::AppendRange(uint64_t from, uint64_t to,
                                             std::vector<uint64_t>* rows) const {
  const uint64_t batch_rows = static_cast<uint64_t>(kPostingBatchRows);
  while (from < to) {
    const int index = static_cast<int>(from / batch_rows);
    ARROW_ASSIGN_OR_RAISE(auto batch, ReadPostingBatch(index));
    const uint64_t first = static_cast<uint64_t>(index) * batch_rows;
    const uint64_t stop = std::min(to, first + static_cast<uint64_t>(batch->num_rows()));
    const auto* values = static_cast<const arrow::UInt64Array&>(*batch->column(0)).raw_values();
    rows->insert(rows->end(), values + (from - first), values + (stop - first));
    from = stop;
  }
  return arrow::Status::OK();
}

arrow::Result<std::vector<uint64_t>> PostingListReader::Postings(int64_t position) const {
  std::vector<uint64_t> rows;
  ARROW_RETURN_NOT_OK(AppendPostings(position, position + 1, &rows));
  return rows;
}

arrow::Status PostingListReader::AppendPostings(int64_t begin, int64_t end,
                                                std::vector<uint64_t>* rows) const {
  if (begin < 0 || end > num_keys() || end < begin) {
    return InvalidArgument(meta_.family(), " segment ", meta_.uuid(), " has no keys [", begin, ", ",
                           end, ")");
  }
  rows->reserve(rows->size() + CountRange(begin, end));
  for (int64_t position = begin; position < end; ++position) {
    const size_t start = rows->size();
    ARROW_RETURN_NOT_OK(AppendRange(offsets_[static_cast<size_t>(position)],
                                    offsets_[static_cast<size_t>(position) + 1], rows));
    ARROW_RETURN_NOT_OK(CheckRun(rows->data() + start, rows->size() - start, position));
  }
  return arrow::Status::OK();
}

arrow::Result<std::vector<uint64_t>> PostingListReader::NullRows() const {
  std::vector<uint64_t> rows;
  for (int i = 0; i < nulls_->num_batches(); ++i) {
    arrow::Result<std::shared_ptr<arrow::RecordBatch>> batch;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batch = nulls_->ReadBatch(i);
    }
    if (!batch.ok()) return batch.status();
    const auto& column = *(*batch)->column(0);
    if (column.null_count() != 0) return Malformed(files_.nulls, "holds null row addresses");
    const auto* values = static_cast<const arrow::UInt64Array&>(column).raw_values();
    rows.insert(rows.end(), values, values + column.length());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i - 1] >= rows[i]) {
      return Malformed(files_.nulls, "holds row addresses out of order");
    }
    if (!fragments_.contains(dataset::FragmentOf(rows[i]))) {
      return Malformed(files_.nulls, "holds row address " + std::to_string(rows[i]) +
                                         ", outside the segment's fragments");
    }
  }
  return rows;
}

arrow::Status PostingListReader::CheckAll() const {
  ARROW_RETURN_NOT_OK(
      ForEach([](int64_t, const uint64_t*, size_t) { return arrow::Status::OK(); }));
  return NullRows().status();
}

arrow::Status PostingListReader::ForEach(
    const std::function<arrow::Status(int64_t position, const uint64_t* rows, size_t count)>& visit)
    const {
  std::vector<uint64_t> rows;
  for (int64_t position = 0; position < num_keys(); ++position) {
    rows.clear();
    ARROW_RETURN_NOT_OK(AppendPostings(position, position + 1, &rows));
    ARROW_RETURN_NOT_OK(visit(position, rows.data(), rows.size()));
  }
  return arrow::Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Merge

namespace {

template <typename Key>
arrow::Result<PostingListStats> MergeTyped(const std::vector<const PostingListReader*>& inputs,
                                           const SegmentDirectory& out,
                                           const PostingListFiles& files) {
  const PostingListReader& head = *inputs.front();
  std::vector<const std::vector<Key>*> keys;
  for (const auto* input : inputs) keys.push_back(input->keys<Key>());
  std::vector<int64_t> next(inputs.size(), 0);
  // Inputs by their next key, smallest first.
  const auto later = [&](size_t a, size_t b) {
    return (*keys[b])[static_cast<size_t>(next[b])] < (*keys[a])[static_cast<size_t>(next[a])];
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->num_keys() > 0) heap.push(i);
  }
  const auto overlap = [&](const std::string& what) {
    return InvalidArgument("cannot merge ", head.meta().family(), " segments of index '",
                           head.meta().index_name(), "' that share ", what,
                           ": their fragments must be disjoint");
  };

  ARROW_ASSIGN_OR_RAISE(
      auto writer, PostingListWriter<Key>::Open(out, files, head.key_type(), head.meta().family()));
  std::vector<uint64_t> rows;
  while (!heap.empty()) {
    const size_t first = heap.top();
    const Key key = (*keys[first])[static_cast<size_t>(next[first])];
    rows.clear();
    size_t runs = 0;
    // Every input whose next key equals `key` contributes its rows.
    while (!heap.empty()) {
      const size_t i = heap.top();
      if (key < (*keys[i])[static_cast<size_t>(next[i])]) break;
      heap.pop();
      auto status = inputs[i]->AppendPostings(next[i], next[i] + 1, &rows);
      if (!status.ok()) return SegmentFileError(status, inputs[i]->meta(), files.postings);
      ++runs;
      if (++next[i] < inputs[i]->num_keys()) heap.push(i);
    }
    if (runs > 1) std::sort(rows.begin(), rows.end());
    if (std::adjacent_find(rows.begin(), rows.end()) != rows.end()) return overlap("a row");
    ARROW_RETURN_NOT_OK(writer->Append(key, rows));
  }

  std::vector<uint64_t> nulls;
  for (const auto* input : inputs) {
    auto rows_of_input = input->NullRows();
    if (!rows_of_input.ok()) {
      return SegmentFileError(rows_of_input.status(), input->meta(), files.nulls);
    }
    nulls.insert(nulls.end(), rows_of_input->begin(), rows_of_input->end());
  }
  std::sort(nulls.begin(), nulls.end());
  if (std::adjacent_find(nulls.begin(), nulls.end()) != nulls.end()) return overlap("a null row");
  return writer->Finish(nulls);
}

}  // namespace

arrow::Result<PostingListStats> MergePostingLists(
    const std::vector<const PostingListReader*>& inputs, const SegmentDirectory& out,
    const PostingListFiles& files) {
  if (inputs.empty()) return InvalidArgument("merging posting lists needs at least one input");
  const PostingListReader& head = *inputs.front();
  for (const auto* input : inputs) {
    if (!input->key_type()->Equals(*head.key_type())) {
      return InvalidArgument("cannot merge ", head.meta().family(),
                             " segments of different key types: segment ", input->meta().uuid(),
                             " holds ", input->key_type()->ToString(), ", segment ",
                             head.meta().uuid(), " holds ", head.key_type()->ToString());
    }
  }
  return DispatchKeyDomain(head.domain(),
                           [&](auto tag) { return MergeTyped<decltype(tag)>(inputs, out, files); });
}

}  // namespace tessera::index::scalar
