#include "tessera/server/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace tessera::server {

namespace {

std::string Digest(const EVP_MD* md, std::string_view first, std::string_view second = {}) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  const bool ok = context != nullptr && EVP_DigestInit_ex(context, md, nullptr) == 1 &&
                  EVP_DigestUpdate(context, first.data(), first.size()) == 1 &&
                  EVP_DigestUpdate(context, second.data(), second.size()) == 1 &&
                  EVP_DigestFinal_ex(context, out, &length) == 1;
  EVP_MD_CTX_free(context);
  // Only an allocation failure inside OpenSSL gets here; there is no digest to fall back to.
  if (!ok) throw std::bad_alloc();
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string Sha1(std::string_view a, std::string_view b = {}) { return Digest(EVP_sha1(), a, b); }
std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

bool SameBytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// Both checks do the same work whatever the input, so that the time taken says nothing about
// which part was wrong.
bool Verify(const std::string& stored, std::string_view response, size_t digest_bytes,
            std::string (*hash)(std::string_view, std::string_view), std::string_view salt_first,
            std::string_view salt_second) {
  if (stored.empty()) return response.empty();
  if (stored.size() != digest_bytes) return false;
  const std::string mask = hash(salt_first, salt_second);
  const std::string candidate =
      response.size() == digest_bytes ? Xor(response, mask) : std::string(digest_bytes, '\0');
  const bool same = SameBytes(hash(candidate, {}), stored);
  return same && response.size() == digest_bytes;
}

}  // namespace

std::string Sha256(std::string_view a, std::string_view b) { return Digest(EVP_sha256(), a, b); }

PasswordDigests DigestPassword(std::string_view password) {
  if (password.empty()) return {};
  return {Sha1(Sha1(password)), Sha256(Sha256(password))};
}

std::string MakeNonce() {
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), kNonceBytes) != 1) {
    throw std::runtime_error("OpenSSL's random generator failed");
  }
  // Printable ASCII without NUL, as MySQL servers send: 7 bits of each byte, 0 mapped away.
  for (char& c : nonce) {
    c = static_cast<char>((static_cast<unsigned char>(c) & 0x7F) | 0x01);
    if (c == '$' || c == '\'') c = 'a';
  }
  return nonce;
}

bool VerifyNativePassword(const PasswordDigests& stored, std::string_view nonce,
                          std::string_view response) {
  return Verify(stored.native, response, 20, Sha1, nonce, stored.native);
}

bool VerifyCachingSha2Password(const PasswordDigests& stored, std::string_view nonce,
                               std::string_view response) {
  return Verify(stored.sha2, response, 32, Sha256, stored.sha2, nonce);
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

std::string FromHex(std::string_view hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return {};
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int high = value(hex[i]);
    const int low = value(hex[i + 1]);
    if (high < 0 || low < 0) return {};
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

}  // namespace tessera::server
