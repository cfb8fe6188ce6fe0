#include "tessera/server/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdlib>
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

const char* PluginName(AccountPlugin plugin) {
  switch (plugin) {
    case AccountPlugin::kNative:
      return "mysql_native_password";
    case AccountPlugin::kCachingSha2:
      return "caching_sha2_password";
    case AccountPlugin::kAny:
      break;
  }
  return "";
}

std::optional<AccountPlugin> PluginNamed(std::string_view name) {
  for (AccountPlugin plugin :
       {AccountPlugin::kAny, AccountPlugin::kNative, AccountPlugin::kCachingSha2}) {
    if (name == PluginName(plugin)) return plugin;
  }
  return std::nullopt;
}

std::string FastPathDigest(std::string_view password) {
  return password.empty() ? std::string() : Sha256(Sha256(password));
}

namespace {

// PBKDF2-HMAC-SHA256: OpenSSL's, with a count that makes one guess cost about 10 ms.
constexpr int kSaltedIterations = 20000;
constexpr size_t kSaltBytes = 16;

std::string Pbkdf2(std::string_view password, std::string_view salt, int iterations) {
  std::string out(32, '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(),
                        static_cast<int>(out.size()),
                        reinterpret_cast<unsigned char*>(out.data())) != 1) {
    throw std::bad_alloc();
  }
  return out;
}

std::string SaltedRecord(std::string_view password) {
  if (password.empty()) return {};
  std::string salt(kSaltBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), kSaltBytes) != 1) {
    throw std::runtime_error("OpenSSL's random generator failed");
  }
  return "pbkdf2-sha256$" + std::to_string(kSaltedIterations) + "$" + ToHex(salt) + "$" +
         ToHex(Pbkdf2(password, salt, kSaltedIterations));
}

}  // namespace

PasswordDigests DigestPassword(std::string_view password, AccountPlugin plugin) {
  PasswordDigests digests;
  digests.plugin = plugin;
  if (password.empty()) return digests;
  if (plugin != AccountPlugin::kCachingSha2) digests.native = Sha1(Sha1(password));
  if (plugin == AccountPlugin::kAny) digests.sha2 = FastPathDigest(password);
  if (plugin == AccountPlugin::kCachingSha2) digests.salted = SaltedRecord(password);
  return digests;
}

namespace {

// Whether `record` ("pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>") is `password`'s.
bool VerifySaltedRecord(std::string_view record, std::string_view password) {
  std::string_view parts[4];
  for (int i = 0; i < 4; ++i) {
    const size_t end = i == 3 ? record.size() : record.find('$');
    if (end == std::string_view::npos) return false;
    parts[i] = record.substr(0, end);
    record.remove_prefix(i == 3 ? end : end + 1);
  }
  const int iterations = std::atoi(std::string(parts[1]).c_str());
  const std::string salt = FromHex(parts[2]);
  const std::string hash = FromHex(parts[3]);
  if (parts[0] != "pbkdf2-sha256" || iterations <= 0 || iterations > 10000000 || salt.empty() ||
      hash.size() != 32) {
    return false;
  }
  return SameBytes(Pbkdf2(password, salt, iterations), hash);
}

}  // namespace

bool VerifyClearPassword(const PasswordDigests& stored, std::string_view password) {
  if (stored.plugin == AccountPlugin::kCachingSha2 && !stored.salted.empty()) {
    return VerifySaltedRecord(stored.salted, password);
  }
  // The salted hash's cost, spent on nothing, for every other account (see the header).
  static const std::string kCostOnly(kSaltBytes, 'x');
  Pbkdf2(password, kCostOnly, kSaltedIterations);
  switch (stored.plugin) {
    case AccountPlugin::kCachingSha2:  // an empty password
      return password.empty();
    case AccountPlugin::kNative:
      return stored.native.empty()
                 ? password.empty()
                 : !password.empty() && SameBytes(Sha1(Sha1(password)), stored.native);
    case AccountPlugin::kAny:
      return stored.sha2.empty() ? password.empty()
                                 : SameBytes(FastPathDigest(password), stored.sha2);
  }
  return false;
}

std::optional<std::string> UnmaskPassword(std::string_view masked, std::string_view nonce) {
  if (masked.empty() || nonce.empty()) return std::nullopt;
  std::string password(masked);
  for (size_t i = 0; i < password.size(); ++i) password[i] ^= nonce[i % nonce.size()];
  if (password.back() != '\0') return std::nullopt;
  password.pop_back();
  return password;
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
  if (!stored.Accepts(AccountPlugin::kNative)) return false;
  return Verify(stored.native, response, 20, Sha1, nonce, stored.native);
}

bool VerifyCachingSha2Password(const PasswordDigests& stored, std::string_view nonce,
                               std::string_view response) {
  if (!stored.Accepts(AccountPlugin::kCachingSha2) || !stored.HasFastPath()) return false;
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
