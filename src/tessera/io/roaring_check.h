// Structural check of a portable roaring bitmap (the serialization of Roaring::write with
// portable = true, https://github.com/RoaringBitmap/RoaringFormatSpec) before CRoaring decodes it.
//
// Roaring::readSafe only checks that the containers fit in the buffer: it accepts containers that
// the rest of CRoaring assumes never exist (an empty run container, unsorted keys or values,
// overlapping runs, a bitset whose cardinality is not its population count), and set operations
// on such a bitmap read through null pointers. A bitmap that passes this check is one CRoaring
// itself could have written: keys strictly ascending; every container non-empty and of the type
// its cardinality implies (array up to 4096 values, strictly ascending; bitset above); runs
// ascending, disjoint (they may touch) and within the container; the declared cardinalities exact;
// no trailing bytes.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <string>
#include <string_view>

namespace tessera::io {

// Empty when `bytes` are a well-formed portable roaring bitmap; otherwise what is wrong.
std::string CheckPortableRoaring(std::string_view bytes);

// The bitmap, once CheckPortableRoaring passed; otherwise Corrupt "<what> is not a valid
// roaring bitmap (<problem>)". The one way tessera decodes a bitmap read from a file or metadata.
arrow::Result<Roaring> DecodePortableRoaring(std::string_view bytes, std::string_view what);

}  // namespace tessera::io
