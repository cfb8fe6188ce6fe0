#include "tessera/io/sha256.h"

#include <openssl/evp.h>

namespace tessera::io {

std::string Sha256(const void* data, size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest fails only when the digest cannot be set up (no SHA-256 in the provider), which
  // no supported OpenSSL build lacks; an empty result then compares unequal to every stored one.
  if (EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr) != 1) return "";
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string HexDigest(const std::string& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    text.push_back(kDigits[byte >> 4]);
    text.push_back(kDigits[byte & 0xf]);
  }
  return text;
}

}  // namespace tessera::io
