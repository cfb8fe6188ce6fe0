// Surgery on the Arrow IPC files of a dataset, for tests of damaged files: where the buffers of
// a column lie in a file, and how to recompute a file's block checksums so that a deliberate
// rewrite passes the checksum layer and reaches the checks behind it.
#pragma once

#include <arrow/array/data.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tessera::testing {

struct FileRange {
  size_t offset = 0;
  size_t length = 0;
};

// The file ranges of buffer `buffer_index` of every array (children included) of the file's
// record batches for which `select(column name, array)` holds; read with Arrow directly.
std::vector<FileRange> BufferRanges(
    const std::string& path, int buffer_index,
    const std::function<bool(const std::string&, const arrow::ArrayData&)>& select);

// Rewrites `path`.crc32c to match the file's current bytes.
void RewriteChecksums(const std::string& path);

std::string ReadBytes(const std::string& path);
void WriteBytes(const std::string& path, const std::string& bytes);

}  // namespace tessera::testing
