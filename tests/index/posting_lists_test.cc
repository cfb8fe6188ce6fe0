// Posting-list files (index/scalar/posting_lists.h): what is written is read back key by key and
// in order, across batch boundaries; lookups and ranges follow key order; a merge of disjoint
// inputs equals one write over their union; malformed files are Corrupt naming the file.
#include "tessera/index/scalar/posting_lists.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar::posting_lists_test {
namespace {

using testing::TempDirectory;

struct Written {
  format::SegmentMeta meta;
  SegmentDirectory directory;
};

std::shared_ptr<io::Storage> StorageAt(const TempDirectory& temp) {
  auto storage = io::Storage::Open(temp.path().string());
  EXPECT_TRUE(storage.ok()) << storage.status().ToString();
  return *storage;
}

format::SegmentMeta MetaOf(const SegmentDirectory& directory, const Roaring& fragments) {
  format::SegmentMeta meta;
  meta.set_uuid(directory.uuid);
  meta.set_family("TEST_POSTINGS");
  meta.set_index_name("t_idx");
  meta.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  return meta;
}

// Reference postings: key -> ascending rows.
template <typename Key>
using Reference = std::map<OwnedKey<Key>, std::vector<uint64_t>>;

template <typename Key>
Written WriteReference(const std::shared_ptr<io::Storage>& storage,
                       const std::shared_ptr<arrow::DataType>& type,
                       const Reference<Key>& reference, const std::vector<uint64_t>& nulls,
                       const Roaring& fragments) {
  Written written;
  written.directory = *NewSegmentDirectory(storage);
  written.meta = MetaOf(written.directory, fragments);
  std::vector<PostingEntry<Key>> entries;
  for (const auto& [key, rows] : reference) {
    for (uint64_t row : rows) entries.push_back({Key(key), row});
    // Duplicate pairs (an element twice in one list) are written once.
    if (!rows.empty()) entries.push_back({Key(key), rows.front()});
  }
  std::shuffle(entries.begin(), entries.end(), std::mt19937_64(7));
  auto stats = WritePostingEntries<Key>(written.directory, PostingListFiles(), type, "TEST",
                                        std::move(entries), nulls);
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return written;
}

std::unique_ptr<PostingListReader> OpenReader(const Written& written) {
  auto reader = PostingListReader::Open(written.meta, written.directory, PostingListFiles());
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? std::move(*reader) : nullptr;
}

// Random int64 postings over fragments 0..2: some keys with many rows (crossing postings
// batches), most with few.
Reference<int64_t> RandomIntegers(uint64_t seed, std::vector<uint64_t>* nulls) {
  std::mt19937_64 random(seed);
  Reference<int64_t> reference;
  for (uint32_t fragment = 0; fragment < 3; ++fragment) {
    for (uint32_t offset = 0; offset < 20000; ++offset) {
      const uint64_t row = dataset::MakeRowAddress(fragment, offset);
      const uint64_t draw = random() % 100;
      if (draw < 5) {
        nulls->push_back(row);
      } else if (draw < 60) {
        reference[-7].push_back(row);  // a heavy key
      } else {
        reference[static_cast<int64_t>(random() % 30000) - 15000].push_back(row);
      }
    }
  }
  return reference;
}

void ExpectMatches(const PostingListReader& reader, const Reference<int64_t>& reference,
                   const std::vector<uint64_t>& nulls) {
  ASSERT_EQ(reader.num_keys(), static_cast<int64_t>(reference.size()));
  const auto* keys = reader.keys<int64_t>();
  ASSERT_NE(keys, nullptr);
  EXPECT_EQ(reader.keys<std::string_view>(), nullptr);
  int64_t position = 0;
  for (const auto& [key, rows] : reference) {
    ASSERT_EQ((*keys)[static_cast<size_t>(position)], key);
    EXPECT_EQ(reader.count(position), rows.size());
    auto found = reader.Find(arrow::Int64Scalar(key));
    ASSERT_OK(found.status());
    ASSERT_EQ(*found, std::optional<int64_t>(position));
    auto postings = reader.Postings(position);
    ASSERT_OK(postings.status());
    EXPECT_EQ(*postings, rows) << "key " << key;
    ++position;
  }
  std::vector<int64_t> visited;
  auto expected = reference.begin();
  ASSERT_OK(reader.ForEach([&](int64_t at, const uint64_t* rows, size_t count) {
    visited.push_back(at);
    EXPECT_EQ(std::vector<uint64_t>(rows, rows + count), expected->second);
    ++expected;
    return arrow::Status::OK();
  }));
  EXPECT_EQ(visited.size(), reference.size());
  auto null_rows = reader.NullRows();
  ASSERT_OK(null_rows.status());
  EXPECT_EQ(*null_rows, nulls);
}

TEST(PostingLists, RoundTripAcrossBatches) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  std::vector<uint64_t> nulls;
  const auto reference = RandomIntegers(1, &nulls);
  Roaring fragments;
  fragments.addRange(0, 3);
  const Written written =
      WriteReference<int64_t>(storage, arrow::int64(), reference, nulls, fragments);
  auto reader = OpenReader(written);
  ASSERT_NE(reader, nullptr);
  ASSERT_GT(reader->num_postings(), static_cast<uint64_t>(2 * kPostingBatchRows));
  ASSERT_GT(reader->num_keys(), kKeyBatchRows);
  ExpectMatches(*reader, reference, nulls);
  EXPECT_FALSE(reader->Find(arrow::Int64Scalar(123456)).ValueOrDie().has_value());
  EXPECT_FALSE(reader->Find(arrow::Int64Scalar()).ValueOrDie().has_value());  // null
  // A value of another type is the caller's bug.
  EXPECT_EQ(KindOf(reader->Find(arrow::StringScalar("x")).status()), ErrorKind::kInvalidArgument);
}

TEST(PostingLists, RangesFollowKeyOrder) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  Reference<int64_t> reference;
  for (int64_t key : {-5, -1, 0, 3, 9}) reference[key] = {static_cast<uint64_t>(key + 10)};
  Roaring fragments;
  fragments.add(0);
  auto reader =
      OpenReader(WriteReference<int64_t>(storage, arrow::int64(), reference, {}, fragments));
  ASSERT_NE(reader, nullptr);
  const auto bound = [](int64_t value, bool inclusive) {
    return std::optional<ScalarBound>(
        ScalarBound{std::make_shared<arrow::Int64Scalar>(value), inclusive});
  };
  using Positions = std::pair<int64_t, int64_t>;
  EXPECT_EQ(reader->Range(bound(-1, true), bound(3, true)).ValueOrDie(), Positions(1, 4));
  EXPECT_EQ(reader->Range(bound(-1, false), bound(3, false)).ValueOrDie(), Positions(2, 3));
  EXPECT_EQ(reader->Range(std::nullopt, bound(0, false)).ValueOrDie(), Positions(0, 2));
  EXPECT_EQ(reader->Range(bound(4, true), std::nullopt).ValueOrDie(), Positions(4, 5));
  EXPECT_EQ(reader->Range(std::nullopt, std::nullopt).ValueOrDie(), Positions(0, 5));
  const auto crossed = reader->Range(bound(9, true), bound(-5, true)).ValueOrDie();
  EXPECT_EQ(crossed.first, crossed.second);
  const std::optional<ScalarBound> null_bound(
      ScalarBound{std::make_shared<arrow::Int64Scalar>(), true});
  const auto with_null = reader->Range(null_bound, std::nullopt).ValueOrDie();
  EXPECT_EQ(with_null.first, with_null.second);
  EXPECT_EQ(reader->CountRange(0, 5), 5u);
}

TEST(PostingLists, StringKeysCompareBytewise) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  Reference<std::string_view> reference;
  reference["B"] = {1, 5};
  reference["a"] = {2};
  reference["ab"] = {3, 4};
  reference[""] = {6};
  reference["\xc3\xa9"] = {0};
  Roaring fragments;
  fragments.add(0);
  for (const auto& type : {arrow::utf8(), arrow::large_utf8()}) {
    auto reader =
        OpenReader(WriteReference<std::string_view>(storage, type, reference, {7}, fragments));
    ASSERT_NE(reader, nullptr);
    EXPECT_TRUE(reader->key_type()->Equals(*type));
    const auto* keys = reader->keys<std::string_view>();
    ASSERT_NE(keys, nullptr);
    EXPECT_EQ(*keys, (std::vector<std::string_view>{"", "B", "a", "ab", "\xc3\xa9"}));
    auto found = reader->Find(arrow::StringScalar("ab")).ValueOrDie();
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(reader->Postings(*found).ValueOrDie(), (std::vector<uint64_t>{3, 4}));
    EXPECT_EQ(reader->KeyAt(2).ValueOrDie()->ToString(), "a");
  }
}

TEST(PostingLists, MergeEqualsOneWriteOverTheUnion) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  std::vector<uint64_t> nulls;
  const auto reference = RandomIntegers(2, &nulls);
  // One input per fragment.
  std::vector<Written> parts;
  std::vector<std::unique_ptr<PostingListReader>> readers;
  for (uint32_t fragment = 0; fragment < 3; ++fragment) {
    Reference<int64_t> part;
    for (const auto& [key, rows] : reference) {
      for (uint64_t row : rows) {
        if (dataset::FragmentOf(row) == fragment) part[key].push_back(row);
      }
    }
    std::vector<uint64_t> part_nulls;
    for (uint64_t row : nulls) {
      if (dataset::FragmentOf(row) == fragment) part_nulls.push_back(row);
    }
    Roaring covered;
    covered.add(fragment);
    parts.push_back(WriteReference<int64_t>(storage, arrow::int64(), part, part_nulls, covered));
    readers.push_back(OpenReader(parts.back()));
    ASSERT_NE(readers.back(), nullptr);
  }
  std::vector<const PostingListReader*> inputs;
  for (const auto& reader : readers) inputs.push_back(reader.get());
  Written merged;
  merged.directory = *NewSegmentDirectory(storage);
  Roaring all;
  all.addRange(0, 3);
  merged.meta = MetaOf(merged.directory, all);
  auto stats = MergePostingLists(inputs, merged.directory, PostingListFiles());
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->num_keys, reference.size());
  EXPECT_EQ(stats->num_nulls, nulls.size());
  auto reader = OpenReader(merged);
  ASSERT_NE(reader, nullptr);
  ExpectMatches(*reader, reference, nulls);

  // Inputs sharing rows, or of different key types, are refused.
  auto out = *NewSegmentDirectory(storage);
  EXPECT_EQ(KindOf(MergePostingLists({inputs[0], inputs[0]}, out, PostingListFiles()).status()),
            ErrorKind::kInvalidArgument);
  Reference<std::string_view> strings;
  strings["x"] = {dataset::MakeRowAddress(5, 0)};
  Roaring five;
  five.add(5);
  auto text =
      OpenReader(WriteReference<std::string_view>(storage, arrow::utf8(), strings, {}, five));
  ASSERT_NE(text, nullptr);
  auto out2 = *NewSegmentDirectory(storage);
  const auto mixed = MergePostingLists({inputs[0], text.get()}, out2, PostingListFiles()).status();
  EXPECT_EQ(KindOf(mixed), ErrorKind::kInvalidArgument) << mixed.ToString();
}

TEST(PostingLists, WriterRefusesDisorder) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  auto directory = *NewSegmentDirectory(storage);
  ASSERT_OK_AND_ASSIGN(auto writer, PostingListWriter<int64_t>::Open(directory, PostingListFiles(),
                                                                     arrow::int64(), "TEST"));
  ASSERT_OK(writer->Append(3, std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(KindOf(writer->Append(3, std::vector<uint64_t>{4})), ErrorKind::kInternal);
  EXPECT_EQ(KindOf(writer->Append(2, std::vector<uint64_t>{4})), ErrorKind::kInternal);
  EXPECT_EQ(KindOf(writer->Append(5, std::vector<uint64_t>{4, 4})), ErrorKind::kInternal);
  EXPECT_EQ(KindOf(writer->Append(6, std::vector<uint64_t>{})), ErrorKind::kInternal);
}

// Writes a file of the segment directly (with valid checksums), bypassing the writer's checks.
void WriteRaw(const SegmentDirectory& directory, const std::string& name,
              const std::shared_ptr<arrow::Schema>& schema,
              const std::vector<std::shared_ptr<arrow::Array>>& columns) {
  ASSERT_OK_AND_ASSIGN(auto writer, IpcFileWriter::Open(directory, name, schema));
  ASSERT_OK(writer->Write(*arrow::RecordBatch::Make(schema, columns[0]->length(), columns)));
  ASSERT_OK(writer->Close());
}

template <typename Builder, typename Value>
std::shared_ptr<arrow::Array> ArrayOf(const std::vector<Value>& values) {
  Builder builder;
  EXPECT_TRUE(builder.AppendValues(values).ok());
  return *builder.Finish();
}

void ExpectCorruptNaming(const arrow::Status& status, const std::string& file) {
  EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  EXPECT_NE(status.message().find(file), std::string::npos) << status.ToString();
}

TEST(PostingLists, MalformedFilesAreCorruptNamingTheFile) {
  TempDirectory temp;
  auto storage = StorageAt(temp);
  Reference<int64_t> reference;
  reference[1] = {1, 2};
  reference[2] = {3};
  Roaring fragments;
  fragments.add(0);
  const Written written =
      WriteReference<int64_t>(storage, arrow::int64(), reference, {4}, fragments);
  {
    auto reader = OpenReader(written);
    ASSERT_NE(reader, nullptr);
    EXPECT_OK(reader->CheckAll());
  }
  const auto keys_schema = PostingKeysSchema(arrow::int64());
  const PostingListFiles files;

  // Keys out of order.
  WriteRaw(written.directory, files.keys, keys_schema,
           {ArrayOf<arrow::Int64Builder, int64_t>({2, 1}),
            ArrayOf<arrow::UInt64Builder, uint64_t>({2, 1})});
  ExpectCorruptNaming(PostingListReader::Open(written.meta, written.directory, files).status(),
                      files.keys);
  // Counts that do not add up to the postings file.
  WriteRaw(written.directory, files.keys, keys_schema,
           {ArrayOf<arrow::Int64Builder, int64_t>({1, 2}),
            ArrayOf<arrow::UInt64Builder, uint64_t>({2, 1 + kPostingBatchRows})});
  {
    const auto status = PostingListReader::Open(written.meta, written.directory, files).status();
    ExpectCorruptNaming(status, files.keys);
    ExpectCorruptNaming(status, files.postings);
  }
  // A zero count.
  WriteRaw(written.directory, files.keys, keys_schema,
           {ArrayOf<arrow::Int64Builder, int64_t>({1, 2}),
            ArrayOf<arrow::UInt64Builder, uint64_t>({3, 0})});
  ExpectCorruptNaming(PostingListReader::Open(written.meta, written.directory, files).status(),
                      files.keys);
  // Restore the keys; damage the postings: out of order, then outside the fragments.
  WriteRaw(written.directory, files.keys, keys_schema,
           {ArrayOf<arrow::Int64Builder, int64_t>({1, 2}),
            ArrayOf<arrow::UInt64Builder, uint64_t>({2, 1})});
  WriteRaw(written.directory, files.postings, AddressSchema(),
           {ArrayOf<arrow::UInt64Builder, uint64_t>({2, 1, 3})});
  {
    auto reader = OpenReader(written);
    ASSERT_NE(reader, nullptr);
    ExpectCorruptNaming(reader->Postings(0).status(), files.postings);
    EXPECT_OK(reader->Postings(1).status());
    ExpectCorruptNaming(reader->CheckAll(), files.postings);
  }
  WriteRaw(written.directory, files.postings, AddressSchema(),
           {ArrayOf<arrow::UInt64Builder, uint64_t>({1, 2, dataset::MakeRowAddress(9, 0)})});
  {
    auto reader = OpenReader(written);
    ASSERT_NE(reader, nullptr);
    ExpectCorruptNaming(reader->Postings(1).status(), files.postings);
    ExpectCorruptNaming(
        reader->ForEach([](int64_t, const uint64_t*, size_t) { return arrow::Status::OK(); }),
        files.postings);
  }
  // Null rows outside the fragments.
  WriteRaw(written.directory, files.nulls, AddressSchema(),
           {ArrayOf<arrow::UInt64Builder, uint64_t>({dataset::MakeRowAddress(9, 0)})});
  {
    auto reader = OpenReader(written);
    ASSERT_NE(reader, nullptr);
    ExpectCorruptNaming(reader->NullRows().status(), files.nulls);
  }
  // A file that is not Arrow at all.
  for (const std::string& name : {files.keys, files.postings, files.nulls}) {
    const std::string path = written.directory.path + "/" + name;
    const std::string original = storage->ReadFile(path).ValueOrDie()->ToString();
    ASSERT_OK(storage->WriteFile(path, "not an arrow file"));
    ExpectCorruptNaming(PostingListReader::Open(written.meta, written.directory, files).status(),
                        name);
    ASSERT_OK(storage->WriteFile(path, original));
  }
}

}  // namespace
}  // namespace tessera::index::scalar::posting_lists_test
