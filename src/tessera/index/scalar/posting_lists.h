// Posting lists: the sorted distinct keys of a segment, each with the ascending row addresses that
// hold it, plus the rows whose value is null. Exact families that enumerate values (BITMAP: a
// column's values; LABEL_LIST: the elements of its lists; NGRAM: the n-grams of its strings)
// store them in these files and answer predicates by unions and intersections of postings.
//
// Files (names chosen by the family, PostingListFiles; all Arrow IPC with block checksums beside
// them, `<name>.crc32c`, read only through io::VerifiedIpcFile):
//
//   keys      columns `key` (the key type, non-null) and `count` (uint64, >= 1): one row per
//             distinct key, keys strictly ascending across the file (key order of btree_key.h:
//             the order Arrow compute compares values in), in batches of at most kKeyBatchRows.
//   postings  column `_rowaddr` (uint64): the postings of all keys, key after key, each key's
//             rows strictly ascending; key i's rows are the `count[i]` addresses that follow
//             those of keys 0..i-1. Every batch holds exactly kPostingBatchRows addresses but
//             the last, so the batch holding an offset is computed, never searched.
//   nulls     column `_rowaddr` (uint64): the rows whose value is null, ascending.
//
// Why offsets into one row-address column rather than a serialized bitmap per key: the postings
// stay plain Arrow (zero-copy from the memory map, verified by the same array checks as every
// other file, readable by any Arrow tool), every address is checked for order and fragment as
// it is decoded with no third-party decoder in the trust path (the Roaring version we link
// cannot deserialize untrusted bytes safely), and the planner wants ascending address vectors
// anyway. The price is 8 bytes a posting; compressing them is a later format version.
//
// Reading: Open reads the keys file whole (verified; binary keys are views into its memory map)
// and checks that keys ascend strictly, counts are positive and add up to the postings file's
// length; it reads no posting. A lookup binary-searches the keys and decodes only the postings
// batches holding the asked key's rows; they are checked then (strictly ascending, inside the
// segment's fragments, the batch of the expected length). Any violation is Corrupt naming the
// file and the segment. Readers may be used from several threads at once.
//
// Writing streams: keys and postings are buffered one batch at a time, so a writer's memory is
// O(kKeyBatchRows + kPostingBatchRows) whatever the segment's size. MergePostingLists k-way
// merges the keys of several readers and writes each key's rows once, holding one key's rows at
// a time.
#pragma once

#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/btree_layout.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/io/verified_ipc_file.h"

namespace tessera::index::scalar {

inline constexpr int64_t kKeyBatchRows = 16 * 1024;
inline constexpr int64_t kPostingBatchRows = 16 * 1024;

// The names of one set of posting-list files inside a segment directory.
struct PostingListFiles {
  std::string keys = "keys.arrow";
  std::string postings = "postings.arrow";
  std::string nulls = "nulls.arrow";

  // "<prefix>keys.arrow", "<prefix>postings.arrow", "<prefix>nulls.arrow".
  static PostingListFiles WithPrefix(std::string_view prefix);
  // The three files and their checksum files, for IndexFamily::RequiredFiles.
  std::vector<std::string> WithChecksums() const;
};

std::shared_ptr<arrow::Schema> PostingKeysSchema(const std::shared_ptr<arrow::DataType>& key_type);

struct PostingListStats {
  uint64_t num_keys = 0;
  uint64_t num_postings = 0;  // the sum of the keys' counts
  uint64_t num_nulls = 0;
};

// A key kept beyond the life of the array it came from.
template <typename Key>
using OwnedKey = std::conditional_t<kIsBinaryKey<Key>, std::string, Key>;

// Writes one set of posting-list files. Key is the key domain of btree_key.h (int64_t,
// uint64_t, double, std::string_view) and `key_type` a type of that domain (the column's type).
template <typename Key>
class PostingListWriter {
 public:
  // `family` names the writing family in messages.
  static arrow::Result<std::unique_ptr<PostingListWriter>> Open(
      const SegmentDirectory& out, const PostingListFiles& files,
      const std::shared_ptr<arrow::DataType>& key_type, std::string_view family);

  // Keys must come strictly ascending (no NaN), each with a non-empty, strictly ascending row
  // list; Internal error otherwise (a writer never produces an invalid file).
  arrow::Status Append(const Key& key, const uint64_t* rows, size_t count);
  arrow::Status Append(const Key& key, const std::vector<uint64_t>& rows) {
    return Append(key, rows.data(), rows.size());
  }

  // Flushes the last batches, writes `null_rows` (strictly ascending) and closes the files.
  arrow::Result<PostingListStats> Finish(const std::vector<uint64_t>& null_rows);

 private:
  PostingListWriter(const SegmentDirectory& out, PostingListFiles files,
                    std::shared_ptr<arrow::DataType> key_type, std::string family,
                    KeyAppender<Key> appender)
      : out_(out),
        files_(std::move(files)),
        key_type_(std::move(key_type)),
        family_(std::move(family)),
        appender_(appender) {}

  arrow::Status FlushKeys();
  arrow::Status FlushPostings();

  SegmentDirectory out_;
  PostingListFiles files_;
  std::shared_ptr<arrow::DataType> key_type_;
  std::string family_;
  KeyAppender<Key> appender_;
  std::unique_ptr<IpcFileWriter> keys_file_;
  std::unique_ptr<IpcFileWriter> postings_file_;
  std::unique_ptr<arrow::ArrayBuilder> keys_;
  arrow::UInt64Builder counts_;
  arrow::UInt64Builder postings_;
  PostingListStats stats_;
  bool has_previous_ = false;
  OwnedKey<Key> previous_key_{};
};

extern template class PostingListWriter<int64_t>;
extern template class PostingListWriter<uint64_t>;
extern template class PostingListWriter<double>;
extern template class PostingListWriter<std::string_view>;

// (key, row address) pairs collected by a build, written as posting lists: sorted by key then
// row, duplicate pairs (an element twice in one list) kept once. Binary keys are views: what
// they point into must outlive WritePostingEntries.
template <typename Key>
struct PostingEntry {
  Key key;
  uint64_t row;
};

template <typename Key>
arrow::Result<PostingListStats> WritePostingEntries(
    const SegmentDirectory& out, const PostingListFiles& files,
    const std::shared_ptr<arrow::DataType>& key_type, std::string_view family,
    std::vector<PostingEntry<Key>> entries, std::vector<uint64_t> null_rows);

extern template arrow::Result<PostingListStats> WritePostingEntries<int64_t>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<int64_t>>, std::vector<uint64_t>);
extern template arrow::Result<PostingListStats> WritePostingEntries<uint64_t>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<uint64_t>>, std::vector<uint64_t>);
extern template arrow::Result<PostingListStats> WritePostingEntries<double>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<double>>, std::vector<uint64_t>);
extern template arrow::Result<PostingListStats> WritePostingEntries<std::string_view>(
    const SegmentDirectory&, const PostingListFiles&, const std::shared_ptr<arrow::DataType>&,
    std::string_view, std::vector<PostingEntry<std::string_view>>, std::vector<uint64_t>);

// Reads one set of posting-list files of a segment.
class PostingListReader {
 public:
  // The segment's family() names it in messages; its fragment bitmap bounds the addresses.
  static arrow::Result<std::unique_ptr<PostingListReader>> Open(const format::SegmentMeta& segment,
                                                                const SegmentDirectory& directory,
                                                                const PostingListFiles& files);

  const format::SegmentMeta& meta() const { return meta_; }
  const PostingListFiles& files() const { return files_; }
  const std::shared_ptr<arrow::DataType>& key_type() const { return key_type_; }
  KeyDomain domain() const { return domain_; }
  int64_t num_keys() const { return static_cast<int64_t>(counts_.size()); }
  uint64_t num_postings() const { return num_postings_; }
  // The number of rows of key `position` (0 <= position < num_keys()); no posting is read.
  uint64_t count(int64_t position) const { return counts_[static_cast<size_t>(position)]; }
  // The sum of count() over [begin, end).
  uint64_t CountRange(int64_t begin, int64_t end) const {
    return offsets_[static_cast<size_t>(end)] - offsets_[static_cast<size_t>(begin)];
  }

  // The keys, ascending, when Key is the reader's domain; null otherwise. Binary keys view
  // into the memory-mapped keys file and live as long as the reader.
  template <typename Key>
  const std::vector<Key>* keys() const {
    return std::get_if<std::vector<Key>>(&keys_);
  }
  // Key `position` as a scalar of key_type().
  arrow::Result<std::shared_ptr<arrow::Scalar>> KeyAt(int64_t position) const;

  // The position of the key equal to `value`; nullopt when no key equals it (a null or NaN
  // value equals none). InvalidArgument, naming the index, for a value whose type does not
  // QueryTypeMatches the key type.
  arrow::Result<std::optional<int64_t>> Find(const arrow::Scalar& value) const;
  // The positions [begin, end) of the keys between the bounds (absent: unbounded); empty when a
  // bound is null or NaN (comparisons with them are never TRUE) or the bounds cross.
  arrow::Result<std::pair<int64_t, int64_t>> Range(const std::optional<ScalarBound>& lower,
                                                   const std::optional<ScalarBound>& upper) const;

  // The rows of key `position`, strictly ascending, checked (see the file comment).
  arrow::Result<std::vector<uint64_t>> Postings(int64_t position) const;
  // The rows of keys [begin, end), appended to `rows` key after key (each key's run ascending;
  // the whole is not sorted across keys).
  arrow::Status AppendPostings(int64_t begin, int64_t end, std::vector<uint64_t>* rows) const;
  // The rows whose value is null, strictly ascending and inside the segment's fragments.
  arrow::Result<std::vector<uint64_t>> NullRows() const;

  // Reads and checks every posting and the null rows (what Open leaves to the lookups): for a
  // segment from elsewhere, before it is published (IndexFamily::Verify).
  arrow::Status CheckAll() const;

  // Visits every key in order with its rows (for merges and checks), reading each postings
  // batch once.
  arrow::Status ForEach(const std::function<arrow::Status(int64_t position, const uint64_t* rows,
                                                          size_t count)>& visit) const;

 private:
  PostingListReader() = default;
  arrow::Status Malformed(std::string_view file, const std::string& problem) const;
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadPostingBatch(int index) const;
  // Appends postings [from, to) (offsets into the postings column), checking each batch read.
  arrow::Status AppendRange(uint64_t from, uint64_t to, std::vector<uint64_t>* rows) const;
  arrow::Status CheckRun(const uint64_t* rows, size_t count, int64_t position) const;

  format::SegmentMeta meta_;
  SegmentDirectory directory_;
  PostingListFiles files_;
  Roaring fragments_;
  std::shared_ptr<arrow::DataType> key_type_;
  KeyDomain domain_ = KeyDomain::kSigned;
  std::vector<std::shared_ptr<arrow::RecordBatch>> key_batches_;  // keep binary views alive
  std::variant<std::vector<int64_t>, std::vector<uint64_t>, std::vector<double>,
               std::vector<std::string_view>>
      keys_;
  std::vector<uint64_t> counts_;
  std::vector<uint64_t> offsets_;  // num_keys + 1 prefix sums of counts_
  uint64_t num_postings_ = 0;
  std::unique_ptr<io::VerifiedIpcFile> postings_;
  std::unique_ptr<io::VerifiedIpcFile> nulls_;
  // The IPC file reader is not documented as thread-safe; reads are from a memory map.
  mutable std::mutex mutex_;
  // The last postings batch read (checked), so that reading keys in order reads each batch once.
  mutable int cached_index_ = -1;
  mutable std::shared_ptr<arrow::RecordBatch> cached_batch_;
};

// Merges the posting lists of `inputs` (segments of one index over disjoint fragments, all of
// one key type) into new files in `out`: every key once, with the union of its rows, and the
// union of the null rows. InvalidArgument for inputs of different key types or sharing a row;
// Corrupt (naming the input's file) for a damaged input.
arrow::Result<PostingListStats> MergePostingLists(
    const std::vector<const PostingListReader*>& inputs, const SegmentDirectory& out,
    const PostingListFiles& files);

}  // namespace tessera::index::scalar
