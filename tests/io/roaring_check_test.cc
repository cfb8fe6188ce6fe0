// CheckPortableRoaring accepts every bitmap CRoaring writes and rejects the malformed ones
// Roaring::readSafe lets through.
#include <gtest/gtest.h>

#include <random>
#include <roaring/roaring.hh>
#include <string>

#include "tessera/io/roaring_check.h"

namespace tessera::io::roaring_check_test {
namespace {

std::string Portable(Roaring bitmap, bool optimize) {
  if (optimize) bitmap.runOptimize();
  std::string bytes(bitmap.getSizeInBytes(/*portable=*/true), '\0');
  bitmap.write(bytes.data(), /*portable=*/true);
  return bytes;
}

// Little-endian helpers to write malformed bitmaps by hand.
void Put16(std::string& out, uint32_t value) {
  out.push_back(static_cast<char>(value & 0xFF));
  out.push_back(static_cast<char>((value >> 8) & 0xFF));
}
void Put32(std::string& out, uint32_t value) {
  Put16(out, value & 0xFFFF);
  Put16(out, value >> 16);
}

// A bitmap without run containers: cookie, size, (key, cardinality - 1) pairs, offsets, arrays.
std::string ArrayBitmap(const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& containers) {
  std::string out;
  Put32(out, 12346);
  Put32(out, static_cast<uint32_t>(containers.size()));
  for (const auto& [key, values] : containers) {
    Put16(out, key);
    Put16(out, static_cast<uint32_t>(values.size()) - 1);
  }
  for (size_t i = 0; i < containers.size(); ++i) Put32(out, 0);  // offsets: not checked
  for (const auto& container : containers) {
    for (uint32_t value : container.second) Put16(out, value);
  }
  return out;
}

// One run container (key 0) with `runs` (start, length - 1) and declared cardinality.
std::string RunBitmap(const std::vector<std::pair<uint32_t, uint32_t>>& runs,
                      uint32_t cardinality) {
  std::string out;
  Put32(out, 12347);      // one container
  out.push_back('\x01');  // it is a run container
  Put16(out, 0);
  Put16(out, cardinality - 1);
  Put16(out, static_cast<uint32_t>(runs.size()));
  for (const auto& [start, length] : runs) {
    Put16(out, start);
    Put16(out, length);
  }
  return out;
}

TEST(RoaringCheck, AcceptsWhatCroaringWrites) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    Roaring bitmap;
    const int shape = trial % 4;
    const uint32_t span = shape == 0 ? 100 : shape == 1 ? 70000 : 1u << 20;
    const int count = static_cast<int>(random() % (shape == 3 ? 20000 : 300));
    for (int i = 0; i < count; ++i) bitmap.add(static_cast<uint32_t>(random() % span));
    if (shape == 2) bitmap.addRange(5000, 5000 + random() % 100000);  // runs and bitsets
    for (bool optimize : {false, true}) {
      EXPECT_EQ(CheckPortableRoaring(Portable(bitmap, optimize)), "") << "trial " << trial;
    }
  }
  EXPECT_EQ(CheckPortableRoaring(Portable(Roaring(), false)), "");
  EXPECT_EQ(CheckPortableRoaring(ArrayBitmap({{0, {1, 5}}, {3, {0}}})), "");
  EXPECT_EQ(CheckPortableRoaring(RunBitmap({{0, 4}, {5, 0}}, 6)), "");  // touching runs
}

TEST(RoaringCheck, RejectsMalformedContainers) {
  // Found by tests/fuzz/deletion_fuzzer: readSafe decodes it into an empty run container, and a
  // union with it reads through a null pointer.
  EXPECT_NE(CheckPortableRoaring(RunBitmap({}, 1)), "");
  EXPECT_NE(CheckPortableRoaring(RunBitmap({{10, 5}, {12, 0}}, 7)), "");   // overlapping
  EXPECT_NE(CheckPortableRoaring(RunBitmap({{10, 0}, {5, 0}}, 2)), "");    // unsorted
  EXPECT_NE(CheckPortableRoaring(RunBitmap({{65535, 1}}, 2)), "");         // past the container
  EXPECT_NE(CheckPortableRoaring(RunBitmap({{0, 4}}, 4)), "");             // wrong cardinality
  EXPECT_NE(CheckPortableRoaring(ArrayBitmap({{3, {1}}, {3, {2}}})), "");  // duplicate key
  EXPECT_NE(CheckPortableRoaring(ArrayBitmap({{3, {1}}, {1, {2}}})), "");  // unsorted keys
  EXPECT_NE(CheckPortableRoaring(ArrayBitmap({{0, {5, 5}}})), "");         // duplicate value
  EXPECT_NE(CheckPortableRoaring(ArrayBitmap({{0, {5, 1}}})), "");         // unsorted values
  EXPECT_NE(CheckPortableRoaring(ArrayBitmap({{0, {1}}}) + "x"), "");      // trailing bytes
  EXPECT_NE(CheckPortableRoaring("junk"), "");
  EXPECT_NE(CheckPortableRoaring(""), "");
  // A bitset container whose declared cardinality is not its population count.
  Roaring dense;
  for (uint32_t value = 0; value < 10000; value += 2) dense.add(value);  // 5000 values, no runs
  std::string bitset = Portable(dense, false);
  ASSERT_EQ(CheckPortableRoaring(bitset), "");
  bitset[bitset.size() - 1] = '\x01';
  EXPECT_NE(CheckPortableRoaring(bitset), "");
}

TEST(RoaringCheck, RejectsEveryTruncation) {
  Roaring bitmap;
  bitmap.addRange(0, 10);
  bitmap.add(100000);
  bitmap.addRange(200000, 205000);
  for (bool optimize : {false, true}) {
    const std::string bytes = Portable(bitmap, optimize);
    for (size_t size = 0; size < bytes.size(); ++size) {
      EXPECT_NE(CheckPortableRoaring(bytes.substr(0, size)), "") << size << " of " << bytes.size();
    }
  }
}

}  // namespace
}  // namespace tessera::io::roaring_check_test
