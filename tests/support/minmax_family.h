// MINMAX: a test-only zone-map index family, registered by tests to prove that the planner
// (query/filter_plan.h) uses any scalar family through the capability interface alone
// (index/scalar_segment.h): nothing outside tests/ names it.
//
// A segment holds, per page of `page_rows` consecutive rows of one fragment (default 64, in
// [1, 1048576]; pages never span fragments), the page's row-address range, its null and NaN
// counts and the minimum and maximum of its other values. Columns: signed and unsigned integers
// up to 32 bits and int64 (held as int64), float32 and float64 (held as double).
//
// Its readers answer only supersets (Coverage::kSuperset): the rows of every page that may hold
// a row where the leaf is TRUE, at a cost of those rows. Leaves: `column op literal` (op other
// than !=), IN, BETWEEN, IS NULL, as translated by index::ScalarQueryOf. Semantics follow the
// scan's: NaN compares false with everything (only IN with a NaN in its list selects the pages
// holding NaN), -0.0 equals 0.0 (a superset of IN's bitwise matching), nulls match only IS NULL.
//
// Files: one, `zones.bin`, in host byte order (little-endian on every platform we build on):
//   "TZMM" | u32 format (1) | u32 domain (0 int64, 1 double) | u32 page_rows | u64 zone count |
//   per zone: u32 fragment id, u32 first offset, u32 rows, u32 nulls, u32 nans, u32 has_values,
//             8-byte min, 8-byte max |
//   u32 CRC-32C of everything before it.
// Open checks the size, the checksum and that zones are ascending, disjoint, within the
// segment's fragments and self-consistent: Corrupt naming the segment otherwise.
//
// Merge concatenates the inputs' zones (disjoint fragments), so optimize can merge segments.
#pragma once

#include <arrow/status.h>

#include <cstdint>
#include <string_view>

namespace tessera::testing {

inline constexpr std::string_view kMinMaxFamilyName = "MINMAX";
inline constexpr std::string_view kMinMaxFile = "zones.bin";
inline constexpr int64_t kMinMaxDefaultPageRows = 64;

// Registers the MINMAX family once per process; later calls do nothing.
arrow::Status RegisterMinMaxFamily();

}  // namespace tessera::testing
