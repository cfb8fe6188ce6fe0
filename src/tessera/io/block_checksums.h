// Block checksums: the integrity record of every Arrow IPC file tessera writes.
//
// A file `F` (a data fragment, or a BTREE or IVF segment file) has a companion `F.crc32c`
// holding the CRC-32C of each kBlockBytes block of F's bytes and F's exact size. The companion
// is a framed file (framed_file.h), so its own damage is detected too. Keeping the checksums
// beside the file rather than inside it leaves F a plain Arrow IPC file that any Arrow reader
// opens, and small blocks let a read verify only the blocks it touches: a take of a few rows
// checks a few 4 KiB blocks, not the file.
//
// Invariant: F and F.crc32c are written once, F first, and never change; a reader that finds F
// without its companion, or sizes that disagree, reports Corrupt.
#pragma once

#include <arrow/result.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::io {

inline constexpr size_t kBlockBytes = 4096;
inline constexpr std::string_view kChecksumSuffix = ".crc32c";

// The companion's path: "data/x.arrow" -> "data/x.arrow.crc32c".
std::string ChecksumPathOf(std::string_view path);
// True for a companion's path.
bool IsChecksumPath(std::string_view path);
// A checksummed file and its companion, the two paths that are written, referenced, checked and
// removed together.
std::array<std::string, 2> FileAndChecksums(std::string_view path);

struct BlockChecksums {
  uint64_t file_bytes = 0;
  uint32_t block_bytes = kBlockBytes;
  std::vector<uint32_t> crcs;  // ceil(file_bytes / block_bytes) entries
};

// The companion's bytes (framed).
std::string EncodeBlockChecksums(const BlockChecksums& checksums);
// Corrupt (naming `file_name`) unless `bytes` is a valid companion.
arrow::Result<BlockChecksums> DecodeBlockChecksums(std::string_view bytes,
                                                   std::string_view file_name);

}  // namespace tessera::io
