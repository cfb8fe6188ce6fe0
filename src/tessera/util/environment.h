// Sizes read from environment variables: the budgets of tessera's caches
// (TESSERA_SEGMENT_CACHE_BYTES, TESSERA_S3_CACHE_BYTES, TESSERA_S3_READ_CHUNK_BYTES).
//
// A cache setting must never make an operation fail, so a missing, malformed or too small
// value gives the default.
#pragma once

#include <cstdint>

namespace tessera::util {

// The decimal byte count in `variable`, or `fallback` when it is unset, malformed or below
// `minimum`.
int64_t ByteCountFromEnvironment(const char* variable, int64_t fallback, int64_t minimum = 0);

}  // namespace tessera::util
