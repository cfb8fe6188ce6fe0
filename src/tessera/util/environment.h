// Tuning numbers read from environment variables: the budgets of tessera's caches
// (TESSERA_SEGMENT_CACHE_BYTES, TESSERA_S3_CACHE_BYTES, TESSERA_S3_READ_CHUNK_BYTES) and the
// concurrency of object-storage reads (TESSERA_S3_READ_PARALLELISM).
//
// A tuning setting must never make an operation fail, so a missing, malformed or too small
// value gives the default.
#pragma once

#include <cstdint>

namespace tessera::util {

// The decimal integer in `variable`, or `fallback` when it is unset, malformed or below
// `minimum`.
int64_t IntegerFromEnvironment(const char* variable, int64_t fallback, int64_t minimum = 0);

}  // namespace tessera::util
