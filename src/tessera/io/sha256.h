// SHA-256 of a byte range: the fingerprint of an external file's footer (docs/external.md).
//
// A CRC detects accidental damage; a fingerprint must also tell apart two versions of a file
// that a user rewrote, so it is a cryptographic digest. OpenSSL computes it (the CLI already
// links libcrypto for the server).
#pragma once

#include <cstddef>
#include <string>

namespace tessera::io {

// The 32-byte digest, raw.
std::string Sha256(const void* data, size_t size);

// The digest as 64 lowercase hexadecimal digits, for messages.
std::string HexDigest(const std::string& digest);

}  // namespace tessera::io
