#include "tessera/io/roaring_check.h"

#include "tessera/status.h"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::io {

namespace {

constexpr uint32_t kCookieWithRuns = 12347;  // low 16 bits; high 16 bits: containers - 1
constexpr uint32_t kCookieWithoutRuns = 12346;
constexpr uint32_t kNoOffsetThreshold = 4;  // run-cookie bitmaps with fewer containers omit offsets
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;

// Reads little-endian integers from the front of the bytes; false once they run out.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool Skip(size_t count) {
    if (bytes_.size() < count) return false;
    bytes_.remove_prefix(count);
    return true;
  }
  bool Read(uint32_t& value, int width) {
    if (bytes_.size() < static_cast<size_t>(width)) return false;
    value = 0;
    for (int i = 0; i < width; ++i) {
      value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes_[i])) << (8 * i);
    }
    bytes_.remove_prefix(width);
    return true;
  }
  std::string_view rest() const { return bytes_; }

 private:
  std::string_view bytes_;
};

std::string Where(uint32_t container, std::string_view what) {
  return "container " + std::to_string(container) + ": " + std::string(what);
}

}  // namespace

std::string CheckPortableRoaring(std::string_view bytes) {
  Cursor cursor(bytes);
  uint32_t cookie = 0;
  if (!cursor.Read(cookie, 4)) return "shorter than its header";
  uint32_t size = 0;
  std::string_view run_flags;
  if ((cookie & 0xFFFF) == kCookieWithRuns) {
    size = (cookie >> 16) + 1;
    run_flags = cursor.rest().substr(0, (size + 7) / 8);
    if (!cursor.Skip((size + 7) / 8)) return "truncated in its run flags";
  } else if (cookie == kCookieWithoutRuns) {
    if (!cursor.Read(size, 4)) return "truncated in its header";
  } else {
    return "does not start with a roaring cookie";
  }
  // Each container takes at least 4 header bytes: bounds `size` before anything is allocated.
  if (size > cursor.rest().size() / 4) return "declares more containers than it has bytes for";
  std::vector<uint32_t> keys(size), cardinalities(size);
  for (uint32_t i = 0; i < size; ++i) {
    if (!cursor.Read(keys[i], 2) || !cursor.Read(cardinalities[i], 2)) return "truncated header";
    cardinalities[i] += 1;
    if (i > 0 && keys[i] <= keys[i - 1]) return Where(i, "keys are not strictly ascending");
  }
  if (run_flags.empty() || size >= kNoOffsetThreshold) {
    if (!cursor.Skip(size * size_t{4})) return "truncated in its offsets";
  }
  for (uint32_t i = 0; i < size; ++i) {
    const bool is_run =
        !run_flags.empty() && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    uint64_t cardinality = 0;
    if (is_run) {
      uint32_t runs = 0;
      if (!cursor.Read(runs, 2)) return Where(i, "truncated");
      if (runs == 0) return Where(i, "a run container without runs");
      int64_t previous_end = -1;
      for (uint32_t r = 0; r < runs; ++r) {
        uint32_t start = 0, length = 0;
        if (!cursor.Read(start, 2) || !cursor.Read(length, 2)) return Where(i, "truncated");
        if (start + length > 0xFFFF) return Where(i, "a run ends past the container");
        if (static_cast<int64_t>(start) <= previous_end)
          return Where(i, "runs overlap or are unsorted");
        previous_end = start + length;
        cardinality += length + 1;
      }
    } else if (cardinalities[i] <= kMaxArrayCardinality) {
      int64_t previous = -1;
      for (uint32_t v = 0; v < cardinalities[i]; ++v) {
        uint32_t value = 0;
        if (!cursor.Read(value, 2)) return Where(i, "truncated");
        if (static_cast<int64_t>(value) <= previous)
          return Where(i, "values are not strictly ascending");
        previous = value;
      }
      cardinality = cardinalities[i];
    } else {
      const std::string_view bitset = cursor.rest().substr(0, kBitsetBytes);
      if (!cursor.Skip(kBitsetBytes)) return Where(i, "truncated");
      for (size_t word = 0; word < kBitsetBytes; word += 8) {
        uint64_t bits = 0;
        for (int b = 0; b < 8; ++b) {
          bits |= static_cast<uint64_t>(static_cast<uint8_t>(bitset[word + b])) << (8 * b);
        }
        cardinality += static_cast<uint64_t>(std::popcount(bits));
      }
    }
    if (cardinality != cardinalities[i]) return Where(i, "its cardinality is not the declared one");
  }
  if (!cursor.rest().empty()) return "has trailing bytes after its last container";
  return {};
}

arrow::Result<Roaring> DecodePortableRoaring(std::string_view bytes, std::string_view what) {
  if (const std::string problem = CheckPortableRoaring(bytes); !problem.empty()) {
    return Corrupt(what, " is not a valid roaring bitmap (", problem, ")");
  }
  try {
    return Roaring::readSafe(bytes.data(), bytes.size());
  } catch (const std::exception& error) {
    return Corrupt(what, " cannot be decoded: ", error.what());
  }
}

}  // namespace tessera::io
