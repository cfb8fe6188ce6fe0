// An output stream that records block checksums (block_checksums.h) of everything written
// through it, and on Close() writes the companion `<path>.crc32c` durably.
//
// The checksums are computed from the bytes as they pass, so writing a file costs no second
// read. The caller still makes the main file durable (Storage::Sync) after Close(), as for any
// file; a file is complete only once both it and its companion are closed.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <memory>
#include <string_view>

#include "tessera/io/storage.h"

namespace tessera::io {

arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenChecksummedForWrite(
    Storage& storage, std::string_view path);

}  // namespace tessera::io
