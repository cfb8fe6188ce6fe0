// BLOOMFILTER hashes: how a value is hashed into a zone's bloom filter, one rule for the build
// and the lookup so that values equal under the scan's `=` hash equally.
//
// Values hash by their BTREE key (btree_key.h), with Parquet's XXH64 (parquet::XxHasher, the
// hash parquet::BlockSplitBloomFilter is made for): signed integers, dates and timestamps as the
// int64 of their value, unsigned integers as the int64 of their uint64 bits, strings and
// binaries as their bytes. A literal has the column's type, so it has the column's key domain.
#pragma once

#include <arrow/result.h>
#include <arrow/scalar.h>

#include <cstdint>
#include <string_view>

#include "tessera/index/scalar/btree_key.h"

namespace tessera::index::scalar {

uint64_t HashOfKey(int64_t key);
uint64_t HashOfKey(uint64_t key);
uint64_t HashOfKey(std::string_view key);

// The hash of a valid scalar of a type of `domain`; InvalidArgument for another type.
arrow::Result<uint64_t> HashOfScalar(KeyDomain domain, const arrow::Scalar& value);

}  // namespace tessera::index::scalar
