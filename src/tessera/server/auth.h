// Password authentication of the MySQL protocol, without ever holding a password in clear.
//
// The server stores, per user, two password-equivalent digests (never the password):
//   native = SHA1(SHA1(password))          for mysql_native_password
//   sha2   = SHA256(SHA256(password))      for caching_sha2_password's fast path
// and sends each connection a fresh 20-byte nonce. The client proves it knows the password:
//   native: SHA1(password) XOR SHA1(nonce || native)
//   sha2:   SHA256(password) XOR SHA256(sha2 || nonce)
// The server XORs the proof with the digest it can compute, hashes the result once more and
// compares it with what it stores, in constant time. An empty password is stored as empty
// digests and proven by an empty response. Since the sha2 digest is kept permanently, every
// caching_sha2_password login takes the fast path: the client's "full authentication"
// (password over TLS or RSA) is never needed.
#pragma once

#include <string>
#include <string_view>

namespace tessera::server {

inline constexpr size_t kNonceBytes = 20;

struct PasswordDigests {
  std::string native;  // 20 bytes, or empty for an empty password
  std::string sha2;    // 32 bytes, or empty
};

PasswordDigests DigestPassword(std::string_view password);

// 20 random bytes from OpenSSL's CSPRNG, none of them NUL (clients read the nonce as a
// NUL-terminated string).
std::string MakeNonce();

bool VerifyNativePassword(const PasswordDigests& stored, std::string_view nonce,
                          std::string_view response);
bool VerifyCachingSha2Password(const PasswordDigests& stored, std::string_view nonce,
                               std::string_view response);

// SHA-256 of a then b (32 bytes).
std::string Sha256(std::string_view a, std::string_view b = {});

// Lower-case hexadecimal, and back (empty on a malformed input).
std::string ToHex(std::string_view bytes);
std::string FromHex(std::string_view hex);

}  // namespace tessera::server
