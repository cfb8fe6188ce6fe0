// The integrity guarantee, swept: a dataset with data fragments, deletions, an unindexed tail
// and six indexes (BTREE on a float and on a string column, NGRAM and INVERTED on a text
// column, IVF_FLAT and IVF_PQ on the vectors) has every one of its files damaged in turn —
// truncated, a block zeroed, random bytes flipped, the offsets of variable-length columns
// overwritten — and after each damage every kind of read runs again (index-aware scans, counts with
// filters, a full scan, a take, exact and refined nearest searches with and without a prefilter,
// the postings of the full-text index). Each read must either return exactly what it returned
// before the damage (the damaged bytes were not read) or fail with Corrupt naming the damaged file.
// A crash fails the whole test binary.
//
// The sweep is sharded (kShards test instances, files split between them) so that CTest runs
// the shards in parallel; the shards together apply more than 1,000 seeded mutations.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

#include "support/ipc_file_surgery.h"
#include "support/mixed_rows.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/text_segment.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/query/nearest.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

namespace tessera::corruption_sweep_test {
namespace {

namespace fs = std::filesystem;

constexpr int kShards = 4;
constexpr int kMutationsPerFile = 28;

// One read and how to compare its answers: a canonical text of the result.
struct Read {
  std::string name;
  std::function<arrow::Result<std::string>(const dataset::Dataset&)> run;
};

std::string TableText(const arrow::Table& table) {
  auto combined = table.CombineChunks();
  return combined.ok() ? (*combined)->ToString() : combined.status().ToString();
}

std::vector<float> QueryVector(float base) {
  std::vector<float> query(testing::kMixedDim);
  for (int d = 0; d < testing::kMixedDim; ++d)
    query[static_cast<size_t>(d)] = base + 0.37f * static_cast<float>(d);
  return query;
}

arrow::Result<std::string> NearestText(const dataset::Dataset& data,
                                       query::NearestOptions options) {
  options.column = "vector";
  options.columns = {"id"};
  options.with_row_address = true;
  ARROW_ASSIGN_OR_RAISE(auto table, query::Nearest(data, options));
  return TableText(*table);
}

// The documents, frequencies and positions of the terms starting with "b" of every segment of
// the INVERTED index, opened through its family.
arrow::Result<std::string> FullTextPostings(const dataset::Dataset& data) {
  std::string text;
  const index::IndexFamily* family = index::FindFamily("INVERTED");
  for (const auto& definition : data.manifest().indexes()) {
    if (definition.family() != "INVERTED") continue;
    for (const auto& segment : definition.segments()) {
      ARROW_ASSIGN_OR_RAISE(auto directory, index::DirectoryOf(data.storage(), segment));
      ARROW_ASSIGN_OR_RAISE(auto reader, family->Open(segment, directory));
      const index::TextSegmentReader& postings = *reader->AsText();
      std::vector<index::TermPostings> terms;
      ARROW_RETURN_NOT_OK(
          postings.VisitTerms("b", [&](std::string_view term, const index::TermPostings& found) {
            text += std::string(term) + ":";
            terms.push_back(found);
            return terms.size() < 40;
          }));
      for (const auto& term : terms) {
        ARROW_ASSIGN_OR_RAISE(auto cursor, postings.OpenPostings(term));
        while (cursor->doc() != index::PostingCursor::kEnd) {
          text += " " + std::to_string(postings.row_address(cursor->doc())) + "/" +
                  std::to_string(cursor->term_frequency());
          ARROW_ASSIGN_OR_RAISE(auto positions, cursor->Positions());
          for (uint32_t position : positions) text += "," + std::to_string(position);
          ARROW_RETURN_NOT_OK(cursor->Next());
        }
        text += "\n";
      }
    }
  }
  // Not vacuous: the index has segments and terms starting with "b".
  if (text.find(':') == std::string::npos) return InvalidArgument("no INVERTED terms read");
  return text;
}

std::vector<Read> Reads(const std::vector<uint64_t>& take_addresses) {
  std::vector<Read> reads;
  const auto scan = [](std::string filter) {
    return [filter](const dataset::Dataset& data) -> arrow::Result<std::string> {
      dataset::ScanOptions options;
      options.filter = filter;
      options.with_row_address = true;
      ARROW_ASSIGN_OR_RAISE(auto table, query::Scan(data, options));
      return TableText(*table);
    };
  };
  reads.push_back({"scan price < 300 (BTREE)", scan("price < 300")});
  reads.push_back(
      {"scan category (BTREE on strings)", scan("category = 'c3' OR category IS NULL")});
  reads.push_back(
      {"scan text substrings (NGRAM)", scan("contains(text, 'xyz q') OR text LIKE '%bab cd%'")});
  reads.push_back({"full scan", scan("")});
  reads.push_back({"full-text postings (INVERTED)", FullTextPostings});
  reads.push_back({"count LIKE", [](const dataset::Dataset& data) -> arrow::Result<std::string> {
                     ARROW_ASSIGN_OR_RAISE(auto rows, data.CountRows("text LIKE '%ab%'"));
                     return std::to_string(rows);
                   }});
  reads.push_back({"count tags", [](const dataset::Dataset& data) -> arrow::Result<std::string> {
                     ARROW_ASSIGN_OR_RAISE(auto rows,
                                           data.CountRows("array_has_any(tags, ['t1'])"));
                     return std::to_string(rows);
                   }});
  reads.push_back(
      {"take", [take_addresses](const dataset::Dataset& data) -> arrow::Result<std::string> {
         ARROW_ASSIGN_OR_RAISE(auto table, data.Take(take_addresses));
         return TableText(*table);
       }});
  reads.push_back({"nearest l2 (IVF_FLAT, all partitions)", [](const dataset::Dataset& data) {
                     query::NearestOptions options;
                     options.query = QueryVector(2.0f);
                     options.metric = index::vector::Metric::kL2;
                     options.nprobes = 4;
                     return NearestText(data, options);
                   }});
  reads.push_back({"nearest cosine (IVF_PQ, refined, prefilter)", [](const dataset::Dataset& data) {
                     query::NearestOptions options;
                     options.query = QueryVector(5.0f);
                     options.metric = index::vector::Metric::kCosine;
                     options.nprobes = 2;
                     options.refine_factor = 4;
                     options.filter = "price < 400";
                     options.prefilter = true;
                     options.k = 5;
                     return NearestText(data, options);
                   }});
  return reads;
}

struct Mutation {
  std::string description;
  std::string bytes;  // the file's new contents
};

// Byte ranges of the offsets buffers of a data or segment Arrow IPC file: the targets of the
// offset-damage mutations.
std::vector<testing::FileRange> OffsetBuffers(const std::string& path) {
  return testing::BufferRanges(path, 1, [](const std::string&, const arrow::ArrayData& data) {
    const auto id = data.type->id();
    return id == arrow::Type::STRING || id == arrow::Type::BINARY || id == arrow::Type::LIST;
  });
}

Mutation Mutate(const std::string& original, const std::vector<testing::FileRange>& offsets,
                int round, std::mt19937_64& random) {
  Mutation mutation;
  mutation.bytes = original;
  const size_t size = original.size();
  const auto pick = [&](size_t limit) {
    return limit == 0 ? 0 : static_cast<size_t>(random() % limit);
  };
  switch (round % 4) {
    case 0: {
      const size_t length = pick(size);
      mutation.bytes.resize(length);
      mutation.description = "truncated to " + std::to_string(length) + " bytes";
      break;
    }
    case 1: {
      const size_t begin = pick(size);
      const size_t length = std::min(size - begin, 1 + pick(4096));
      std::fill_n(mutation.bytes.begin() + static_cast<std::ptrdiff_t>(begin), length, '\0');
      mutation.description =
          "zeroed bytes [" + std::to_string(begin) + ", " + std::to_string(begin + length) + ")";
      break;
    }
    case 2: {
      mutation.description = "flipped bytes";
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int i = 0; i < flips && size > 0; ++i) {
        const size_t at = pick(size);
        mutation.bytes[at] = static_cast<char>(mutation.bytes[at] ^ (1 + random() % 255));
        mutation.description += " " + std::to_string(at);
      }
      break;
    }
    default: {
      if (offsets.empty()) {  // no variable-length column: flip one byte instead
        const size_t at = pick(size);
        mutation.bytes[at] = static_cast<char>(mutation.bytes[at] ^ 0x40);
        mutation.description = "flipped byte " + std::to_string(at);
        break;
      }
      const testing::FileRange& range = offsets[pick(offsets.size())];
      const size_t slot = range.offset + 4 * pick(range.length / 4);
      const int32_t values[] = {-1, 1 << 30, 0x7FFFFFFF, static_cast<int32_t>(random() % 5000)};
      const int32_t value = values[pick(4)];
      std::memcpy(mutation.bytes.data() + slot, &value, 4);
      mutation.description =
          "offset at byte " + std::to_string(slot) + " set to " + std::to_string(value);
      break;
    }
  }
  return mutation;
}

class CorruptionSweep : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    root_ = directory_.Child("items");
    dataset::WriteOptions options;
    options.rows_per_batch = 200;
    options.max_rows_per_file = 1200;
    ASSERT_OK_AND_ASSIGN(auto data,
                         dataset::Dataset::Create(
                             root_, testing::ReaderOf(testing::MixedRows(0, 2400, 1)), options));
    ASSERT_OK_AND_ASSIGN(data, data->Delete("id IN (3, 40, 41, 42, 500, 1300, 1301, 2000)"));
    const auto create = [&](std::string name, std::string column, std::string family,
                            index::Params params) {
      index::IndexSpec spec{std::move(name), std::move(column), std::move(family),
                            std::move(params)};
      auto created = index::CreateIndex(*data, spec);
      ASSERT_OK(created.status());
      data = *created;
    };
    create("price_idx", "price", "BTREE", {});
    create("category_idx", "category", "BTREE", {});
    create("text_ngram", "text", "NGRAM", {});
    create("text_inverted", "text", "INVERTED", {});
    create("vec_flat", "vector", "IVF_FLAT", {{"num_partitions", "4"}, {"metric", "l2"}});
    create("vec_pq", "vector", "IVF_PQ",
           {{"num_partitions", "4"}, {"metric", "cosine"}, {"num_sub_vectors", "2"}});
    ASSERT_OK_AND_ASSIGN(
        data, data->Append(testing::ReaderOf(testing::MixedRows(2400, 300, 2)), options));

    for (uint64_t fragment_offset : {1u, 150u, 900u, 1199u}) {
      take_.push_back(dataset::MakeRowAddress(data->manifest().fragments(0).id(),
                                              static_cast<uint32_t>(fragment_offset)));
    }
    take_.push_back(dataset::MakeRowAddress(data->manifest().fragments(2).id(), 7));
    reads_ = Reads(take_);
    for (const auto& read : reads_) {
      auto answer = read.run(*data);
      ASSERT_TRUE(answer.ok()) << read.name << ": " << answer.status().ToString();
      expected_.push_back(*answer);
    }
  }

  // Every read, with the dataset opened anew; `damage` names what was done to `file`.
  void CheckReads(const fs::path& file, const std::string& damage) {
    const std::string name = file.filename().string();
    const auto check = [&](const arrow::Status& status, const std::string& what) {
      if (status.ok()) return;
      ++failures_;
      EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt)
          << what << " after " << damage << " of " << file << ": " << status.ToString();
      EXPECT_NE(status.message().find(name), std::string::npos)
          << what << " after " << damage << " of " << file
          << ": the error does not name the file: " << status.ToString();
    };
    // A fresh process: segments opened (and verified) before the damage are not reused. Files
    // never change in place outside this test, so a long-lived process keeps them open.
    query::SegmentCache::Global().Clear();
    auto data = dataset::Dataset::Open(root_);
    if (!data.ok()) return check(data.status(), "open");
    for (size_t i = 0; i < reads_.size(); ++i) {
      auto answer = reads_[i].run(**data);
      if (!answer.ok()) {
        check(answer.status(), reads_[i].name);
        continue;
      }
      EXPECT_EQ(*answer, expected_[i])
          << reads_[i].name << " gave a wrong answer after " << damage << " of " << file;
    }
  }

  testing::TempDirectory directory_;
  std::string root_;
  std::vector<uint64_t> take_;
  std::vector<Read> reads_;
  std::vector<std::string> expected_;
  int failures_ = 0;
};

TEST_P(CorruptionSweep, EveryReadIsRightOrCorruptNamingTheFile) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root_)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 40u);
  int mutations = 0;
  for (size_t i = static_cast<size_t>(GetParam()); i < files.size(); i += kShards) {
    const fs::path& file = files[i];
    const std::string original = testing::ReadBytes(file);
    const auto offsets = OffsetBuffers(file.string());
    std::mt19937_64 random(0x5eed + i);
    for (int round = 0; round < kMutationsPerFile; ++round) {
      const Mutation mutation = Mutate(original, offsets, round, random);
      testing::WriteBytes(file, mutation.bytes);
      CheckReads(file, mutation.description);
      ++mutations;
      if (HasFailure()) {
        testing::WriteBytes(file, original);
        GTEST_FAIL() << "stopping the sweep at the first failure";
      }
    }
    testing::WriteBytes(file, original);
  }
  std::cout << "corruption sweep shard " << GetParam() << ": " << files.size() << " files, "
            << mutations << " mutations here, " << failures_ << " reads failed with Corrupt\n";
  // Damage was detected, and the sweep was as large as promised.
  EXPECT_GT(failures_, 0);
  EXPECT_GE(mutations * kShards, 1000);
  const int failures_while_damaged = failures_;
  CheckReads(root_, "restoring every file");
  EXPECT_EQ(failures_, failures_while_damaged);
}

INSTANTIATE_TEST_SUITE_P(Shards, CorruptionSweep, ::testing::Range(0, kShards));

}  // namespace
}  // namespace tessera::corruption_sweep_test
