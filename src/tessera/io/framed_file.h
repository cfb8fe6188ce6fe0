// A framed file: payload bytes followed by a fixed footer (payload length, CRC-32C, magic).
//
// Metadata files (manifests, transactions, deletion vectors) are framed so that a truncated,
// torn or overwritten file is reported as Corrupt instead of being parsed into garbage:
// protobuf happily parses a truncated message.
#pragma once

#include <arrow/buffer.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <string_view>

namespace tessera::io {

// Appends the footer to `payload`.
std::string Frame(std::string_view payload);

// Returns the payload of a framed file; Corrupt (naming `file_name`) if the footer, length or
// checksum does not match.
arrow::Result<std::string_view> Unframe(const arrow::Buffer& file, std::string_view file_name);

}  // namespace tessera::io
