// CRC-32C (Castagnoli) of a byte range: the checksum of every file tessera writes.
//
// On x86-64 CPUs with SSE4.2 the CRC32 instruction computes it (three independent streams
// interleaved, so throughput is limited by the instruction's issue rate, not its latency); a
// table-driven loop serves other CPUs. Both give identical results: the value is part of the
// on-disk format (docs/format.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::io {

// `seed` continues a checksum: Crc32c(b, m, Crc32c(a, n)) == Crc32c(a ++ b, n + m).
uint32_t Crc32c(const void* data, size_t size, uint32_t seed = 0);

// The CRC-32C of each `block_bytes` block of [data, data + size) (the last block may be shorter)
// into crcs[0 .. ceil(size / block_bytes)). Three blocks are computed side by side, so a long run
// of blocks goes about three times as fast as one Crc32c call per block.
void Crc32cOfBlocks(const void* data, size_t size, size_t block_bytes, uint32_t* crcs);

// The table-driven implementation, exposed so tests can compare it with the hardware one.
uint32_t Crc32cPortable(const void* data, size_t size, uint32_t seed = 0);

}  // namespace tessera::io
