// The INVERTED segment's encodings and files (index/text/posting_codec.h, term_dictionary.h,
// inverted_files.h): bit packing and posting blocks round-trip at block boundaries and with
// huge frequencies and positions; the dictionary finds every term and only those, visits
// prefixes in order; parameters are validated with precise errors; a damaged file, whole or one
// byte, or a file whose bytes are altered behind valid checksums, is Corrupt naming the file,
// never a crash or a wrong answer accepted silently.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>

#include "support/checked.h"
#include "support/inverted_testing.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/index/text/inverted_family.h"
#include "tessera/index/text/inverted_files.h"
#include "tessera/index/text/inverted_segment_reader.h"
#include "tessera/index/text/posting_codec.h"
#include "tessera/index/text/term_dictionary.h"
#include "tessera/io/checksummed_output.h"
#include "tessera/status.h"

namespace tessera::index::text::inverted_files_test {
namespace {

using testing::AllFragments;
using testing::BuiltSegment;
using testing::Check;
using testing::TempDirectory;

class StringSink final : public ByteSink {
 public:
  void Append(std::string_view bytes) override { bytes_.append(bytes); }
  uint64_t size() const override { return bytes_.size(); }
  std::string bytes_;
};

TEST(InvertedCodec, BitPackingRoundTrips) {
  std::mt19937_64 random(1);
  for (size_t count : {0, 1, 7, 127, 128, 129, 300}) {
    for (int width = 0; width <= 32; ++width) {  // every width: the fast path's shifts
      std::vector<uint32_t> values(count);
      for (auto& value : values) {
        value = width == 0 ? 0 : static_cast<uint32_t>(random() >> (64 - width));
      }
      if (count > 0 && width > 0)
        values[count / 2] = static_cast<uint32_t>((uint64_t{1} << width) - 1);
      std::string packed;
      PackBitsInRuns(values.data(), values.size(), &packed);
      std::vector<uint32_t> unpacked(count);
      const auto* p = reinterpret_cast<const uint8_t*>(packed.data());
      ASSERT_TRUE(UnpackBitsInRuns(&p, p + packed.size(), count, unpacked.data()));
      EXPECT_EQ(p, reinterpret_cast<const uint8_t*>(packed.data()) + packed.size());
      EXPECT_EQ(unpacked, values) << count << " values of " << width << " bits";
      // Short input is refused, not overread.
      if (!packed.empty() && width > 0 && count > 0) {
        const auto* q = reinterpret_cast<const uint8_t*>(packed.data());
        EXPECT_FALSE(UnpackBitsInRuns(&q, q + packed.size() - 1, count, unpacked.data()));
      }
    }
  }
  for (uint64_t value :
       {uint64_t{0}, uint64_t{127}, uint64_t{128}, uint64_t{UINT32_MAX}, UINT64_MAX}) {
    std::string bytes;
    PutVarint(value, &bytes);
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    uint64_t read = 0;
    ASSERT_TRUE(GetVarint(&p, p + bytes.size(), &read));
    EXPECT_EQ(read, value);
  }
}

// Encodes postings with the encoder and decodes them block by block as a cursor does.
TEST(InvertedCodec, PostingBlocksRoundTripAtBlockBoundaries) {
  std::mt19937_64 random(2);
  for (uint32_t documents : {1u, 127u, 128u, 129u, 256u, 1000u}) {
    for (bool huge : {false, true}) {
      std::vector<uint32_t> lengths(documents * 3 + 10);
      for (auto& length : lengths) length = 1 + static_cast<uint32_t>(random() % 50);
      std::vector<uint32_t> docs;
      uint32_t doc = static_cast<uint32_t>(random() % 3);
      for (uint32_t i = 0; i < documents; ++i) {
        docs.push_back(doc);
        doc += 1 + static_cast<uint32_t>(random() % 3);
      }
      std::vector<uint32_t> frequencies;
      for (uint32_t i = 0; i < documents; ++i) {
        frequencies.push_back(huge && i == documents / 2 ? 70000u
                                                         : 1 + static_cast<uint32_t>(random() % 4));
        lengths[docs[i]] = std::max(lengths[docs[i]], frequencies.back());
      }
      StringSink positions;
      PostingListEncoder encoder(&lengths, &positions);
      encoder.Begin();
      std::vector<std::vector<uint32_t>> expected_positions;
      for (uint32_t i = 0; i < documents; ++i) {
        std::vector<uint32_t> list;
        uint32_t position = huge ? 4000000000u - 200000u : 0;
        for (uint32_t k = 0; k < frequencies[i]; ++k) {
          position += static_cast<uint32_t>(random() % 3);
          list.push_back(position);
        }
        encoder.Add(docs[i], frequencies[i], list.data());
        expected_positions.push_back(list);
      }
      std::string record;
      ASSERT_EQ(encoder.Finish(&record), documents);
      std::vector<PostingBlockHeader> headers;
      std::string problem;
      ASSERT_TRUE(DecodePostingHeaders(reinterpret_cast<const uint8_t*>(record.data()),
                                       record.size(), documents, true, &headers, &problem))
          << problem;
      ASSERT_EQ(headers.size(), (documents + kPostingBlockSize - 1) / kPostingBlockSize);
      for (size_t b = 0; b < headers.size(); ++b) {
        const uint32_t count =
            std::min<uint32_t>(kPostingBlockSize, documents - b * kPostingBlockSize);
        uint32_t decoded[kPostingBlockSize];
        uint32_t decoded_frequencies[kPostingBlockSize];
        ASSERT_TRUE(DecodeDocumentBlock(
            reinterpret_cast<const uint8_t*>(record.data()) + headers[b].doc_offset, headers[b],
            count, b == 0, b == 0 ? 0 : headers[b - 1].last_doc, decoded, decoded_frequencies));
        uint32_t max_frequency = 0;
        uint32_t min_length = UINT32_MAX;
        uint64_t total = 0;
        for (uint32_t i = 0; i < count; ++i) {
          const size_t at = b * kPostingBlockSize + i;
          ASSERT_EQ(decoded[i], docs[at]);
          ASSERT_EQ(decoded_frequencies[i], frequencies[at]);
          max_frequency = std::max(max_frequency, frequencies[at]);
          min_length = std::min(min_length, lengths[docs[at]]);
          total += frequencies[at];
        }
        EXPECT_EQ(headers[b].max_term_frequency, max_frequency);
        EXPECT_EQ(headers[b].min_document_length, min_length);
        std::vector<uint32_t> gaps(total);
        const auto* p =
            reinterpret_cast<const uint8_t*>(positions.bytes_.data()) + headers[b].position_offset;
        ASSERT_TRUE(UnpackBitsInRuns(&p, p + headers[b].position_bytes, total, gaps.data()));
        size_t g = 0;
        for (uint32_t i = 0; i < count; ++i) {
          uint32_t position = 0;
          for (uint32_t expected : expected_positions[b * kPostingBlockSize + i]) {
            position += gaps[g++];
            ASSERT_EQ(position, expected);
          }
        }
      }
      // A truncated record is refused.
      EXPECT_FALSE(DecodePostingHeaders(reinterpret_cast<const uint8_t*>(record.data()),
                                        record.size() - 1, documents, true, &headers, &problem));
    }
  }
}

TEST(InvertedDictionary, FindsEveryTermAndVisitsPrefixes) {
  std::mt19937_64 random(3);
  for (size_t count : {0, 1, 31, 32, 33, 1000}) {
    std::set<std::string> unique;
    while (unique.size() < count) {
      std::string term;
      const size_t length = random() % 9;
      for (size_t i = 0; i < length; ++i) term += static_cast<char>('a' + random() % 3);
      if (random() % 50 == 0) term += "\xc3\xa9";  // bytes above 0x7f sort last
      unique.insert(term);
    }
    std::vector<std::string> terms(unique.begin(), unique.end());
    StringSink sink;
    TermDictionaryWriter writer(&sink);
    uint64_t offset = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      writer.Add(terms[i], static_cast<uint32_t>(i + 1), offset, i + 1);
      offset += i + 1;
    }
    writer.Finish();
    auto dictionary = Check(TermDictionary::Parse(
        reinterpret_cast<const uint8_t*>(sink.bytes_.data()), sink.bytes_.size(), offset));
    EXPECT_EQ(dictionary.num_terms(), terms.size());
    uint64_t expected_offset = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      std::string problem;
      auto found = dictionary.Find(terms[i], &problem);
      ASSERT_TRUE(found.has_value()) << terms[i] << problem;
      EXPECT_EQ(found->document_frequency, i + 1);
      EXPECT_EQ(found->offset, expected_offset);
      EXPECT_EQ(found->length, i + 1);
      expected_offset += i + 1;
      EXPECT_FALSE(dictionary.Find(terms[i] + "z", &problem).has_value());
      EXPECT_TRUE(problem.empty());
    }
    for (std::string prefix : {"", "a", "ab", "c", "cc", "d", "\xc3"}) {
      std::vector<std::string> want;
      for (const auto& term : terms) {
        if (term.rfind(prefix, 0) == 0) want.push_back(term);
      }
      std::vector<std::string> got;
      std::string problem;
      ASSERT_TRUE(dictionary.Visit(
          prefix,
          [&](std::string_view term, const TermPostings&) {
            got.emplace_back(term);
            return true;
          },
          &problem));
      EXPECT_EQ(got, want) << "prefix '" << prefix << "' of " << count;
    }
    TermDictionary::Iterator iterator(&dictionary);
    std::vector<std::string> iterated;
    while (iterator.Next()) iterated.emplace_back(iterator.term());
    EXPECT_TRUE(iterator.problem().empty());
    EXPECT_EQ(iterated, terms);
  }
}

TEST(InvertedValidate, RejectsTypesAndParametersNamingThem) {
  auto family = MakeInvertedFamily();
  for (const auto& type : {arrow::int64(), arrow::binary(), arrow::list(arrow::int32()),
                           arrow::struct_({arrow::field("s", arrow::utf8())})}) {
    auto status = family->Validate(arrow::Field("body", type), {}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << status;
    EXPECT_NE(status.message().find("'body'"), std::string::npos) << status;
    EXPECT_NE(status.message().find(type->ToString()), std::string::npos) << status;
  }
  for (const auto& type :
       {arrow::utf8(), arrow::large_utf8(), arrow::list(arrow::utf8()),
        arrow::large_list(arrow::large_utf8()), arrow::list(arrow::large_utf8())}) {
    auto status = family->Validate(arrow::Field("body", type), {}).status();
    EXPECT_TRUE(status.ok()) << type->ToString() << ": " << status;
  }
  const arrow::Field body("body", arrow::utf8());
  const std::vector<std::pair<Params, std::string>> bad = {
      {{{"colour", "red"}}, "colour"},
      {{{"with_position", "maybe"}}, "with_position"},
      {{{"memory_limit", "1000"}}, "memory_limit"},
      {{{"memory_limit", "lots"}}, "memory_limit"},
  };
  for (const auto& [params, named] : bad) {
    auto status = family->Validate(body, params).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status;
    EXPECT_NE(status.message().find(named), std::string::npos) << status;
  }
  auto normalized = Check(family->Validate(body, Params{{"with_position", "FALSE"}}));
  EXPECT_EQ(normalized.at("with_position"), "false");
  EXPECT_EQ(normalized.at("memory_limit"), std::to_string(kDefaultMemoryLimit));
  // Every analyzer parameter, normalized by the analyzer (AnalyzerParams).
  for (const auto& [key, value] : AnalyzerParams(Check(ParseAnalyzerOptions({}, "INVERTED")))) {
    EXPECT_EQ(normalized.at(key), value) << key;
  }
  EXPECT_EQ(Check(family->Validate(body, normalized)), normalized);
}

// ---------------------------------------------------------------------------------------------
// Damage

struct Built {
  TempDirectory directory;
  testing::ColumnDataset data;
  BuiltSegment segment;
};

std::unique_ptr<Built> BuildSmall(const Params& params) {
  auto built = std::make_unique<Built>();
  std::mt19937_64 random(8);
  built->data = testing::MakeColumnDataset(
      built->directory, testing::RandomTextColumn(random, 600, 100, 10, false), 200);
  built->segment = Check(testing::BuildSegment(*MakeInvertedFamily(), *built->data.dataset,
                                               AllFragments(*built->data.dataset), params));
  return built;
}

// Opens the segment as a new process would (the dataset opened anew: no block is known to be
// verified) and reads everything through it.
arrow::Status OpenAndReadAll(const BuiltSegment& segment) {
  SegmentDirectory fresh = segment.directory;
  ARROW_ASSIGN_OR_RAISE(fresh.storage, io::Storage::Open(segment.directory.storage->root()));
  ARROW_ASSIGN_OR_RAISE(auto reader, InvertedSegmentReader::Open(segment.meta, fresh));
  return reader->CheckAll();
}

std::string FileText(const BuiltSegment& segment, const std::string& name) {
  auto buffer = Check(segment.directory.storage->ReadFile(segment.directory.path + "/" + name));
  return buffer->ToString();
}

void WriteRaw(const BuiltSegment& segment, const std::string& name, const std::string& bytes) {
  auto stream = Check(segment.directory.storage->OpenForWrite(segment.directory.path + "/" + name));
  Check(stream->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  Check(stream->Close());
}

// Rewrites `name` with `bytes` and fresh checksums: damage the checksums cannot see.
void WriteChecksummed(const BuiltSegment& segment, const std::string& name,
                      const std::string& bytes) {
  auto stream = Check(
      io::OpenChecksummedForWrite(*segment.directory.storage, segment.directory.path + "/" + name));
  Check(stream->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  Check(stream->Close());
}

void ExpectCorruptNaming(const arrow::Status& status, const std::string& file) {
  EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << file << ": " << status;
  EXPECT_NE(status.message().find(file), std::string::npos) << status;
}

TEST(InvertedDamage, DamagedFilesAreCorruptNamingTheFile) {
  auto built = BuildSmall({});
  const BuiltSegment& segment = built->segment;
  ASSERT_OK(OpenAndReadAll(segment));
  auto family = MakeInvertedFamily();
  for (const std::string& file : family->RequiredFiles(segment.meta)) {
    const std::string original = FileText(segment, file);
    const std::string named = file.substr(0, file.find(".crc32c"));
    // The whole file replaced.
    WriteRaw(segment, file, "not what was written");
    ExpectCorruptNaming(OpenAndReadAll(segment), named);
    // One byte changed.
    if (!original.empty()) {
      std::string flipped = original;
      flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5a);
      WriteRaw(segment, file, flipped);
      ExpectCorruptNaming(OpenAndReadAll(segment), named);
    }
    WriteRaw(segment, file, original);
  }
  // A missing file: the open fails naming it.
  Check(segment.directory.storage->DeleteFile(segment.directory.path + "/postings.bin"));
  auto status = OpenAndReadAll(segment);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("postings.bin"), std::string::npos) << status;
}

TEST(InvertedDamage, AlteredBytesBehindValidChecksumsAreCaughtOrHarmless) {
  auto built = BuildSmall({});
  const BuiltSegment& segment = built->segment;
  const auto naive = testing::BuildNaiveIndex(built->data, AllFragments(*built->data.dataset), {});
  std::mt19937_64 random(12);
  int caught = 0;
  for (std::string_view view : InvertedFileNames()) {
    const std::string file(view);
    const std::string original = FileText(segment, file);
    for (int trial = 0; trial < 60 && !original.empty(); ++trial) {
      std::string altered = original;
      if (trial % 10 == 9) {
        altered.resize(random() % altered.size());
      } else {
        const size_t at = random() % altered.size();
        altered[at] = static_cast<char>(altered[at] ^ (1 + random() % 255));
      }
      WriteChecksummed(segment, file, altered);
      const arrow::Status status = OpenAndReadAll(segment);
      if (!status.ok()) {
        // Altered offsets of one file show as nonsense in the file they point into: the
        // message names a file of the segment, not necessarily the altered one.
        EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << file << ": " << status;
        bool names_a_file = false;
        for (std::string_view name : InvertedFileNames()) {
          names_a_file = names_a_file || status.message().find(name) != std::string::npos;
        }
        EXPECT_TRUE(names_a_file) << status;
        ++caught;
      }
    }
    WriteChecksummed(segment, file, original);
  }
  EXPECT_GT(caught, 100);
  ASSERT_OK(OpenAndReadAll(segment));
}

TEST(InvertedVerify, ChecksTheDefinitionAndEveryPosting) {
  auto built = BuildSmall({});
  auto family = MakeInvertedFamily();
  const auto& segment = built->segment;
  ASSERT_OK(family->Verify(testing::InputOf(*built->data.dataset, {}, {}), segment.meta,
                           segment.directory));
  // Another definition: positions or another analyzer.
  for (const Params& other :
       {Params{{"with_position", "false"}}, Params{{"max_token_length", "5"}}}) {
    auto status = family->Verify(testing::InputOf(*built->data.dataset, {}, other), segment.meta,
                                 segment.directory);
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status;
    EXPECT_NE(status.message().find(segment.meta.uuid()), std::string::npos) << status;
  }
  // A posting block altered behind valid checksums: the open does not read it, Verify does.
  const std::string original = FileText(segment, "postings.bin");
  std::string altered = original;
  altered[altered.size() - 1] = static_cast<char>(altered.back() ^ 0x7f);
  WriteChecksummed(segment, "postings.bin", altered);
  ASSERT_OK(InvertedSegmentReader::Open(segment.meta, segment.directory).status());
  ExpectCorruptNaming(family->Verify(testing::InputOf(*built->data.dataset, {}, {}), segment.meta,
                                     segment.directory),
                      "postings.bin");
  WriteChecksummed(segment, "postings.bin", original);
}

}  // namespace
}  // namespace tessera::index::text::inverted_files_test
