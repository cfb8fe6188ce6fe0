// Password authentication of the MySQL protocol, without ever holding a password in clear.
//
// Every account names the plugins it accepts (AccountPlugin). By default it accepts both, and
// the server stores two password-equivalent digests (never the password):
//   native = SHA1(SHA1(password))          for mysql_native_password
//   sha2   = SHA256(SHA256(password))      for caching_sha2_password's fast path
// and sends each connection a fresh 20-byte nonce. The client proves it knows the password:
//   native: SHA1(password) XOR SHA1(nonce || native)
//   sha2:   SHA256(password) XOR SHA256(sha2 || nonce)
// The server XORs the proof with the digest it can compute, hashes the result once more and
// compares it with what it stores, in constant time. An empty password is stored as empty
// digests and proven by an empty response.
//
// Both digests are unsalted and quick to compute, so a stolen users file lets weak passwords
// be guessed offline. An account IDENTIFIED WITH caching_sha2_password keeps, as MySQL does,
// only a salted, slow hash on disk (`salted`, PBKDF2-HMAC-SHA256): its fast-path digest lives
// in memory only, filled by the first "full authentication" after each start, in which the
// client sends the password itself, over TLS or encrypted with the server's RSA key
// (rsa_key.h). An account IDENTIFIED WITH mysql_native_password keeps the native digest only.
// As in MySQL, a caching_sha2_password proof that does not verify is answered with a full
// authentication rather than a refusal (PyMySQL, for one, computes its proof after an auth
// switch with the nonce's NUL and relies on that).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tessera::server {

inline constexpr size_t kNonceBytes = 20;

enum class AccountPlugin { kAny, kNative, kCachingSha2 };

// "mysql_native_password", "caching_sha2_password", or "" for kAny; and back (nullopt for a
// plugin the server does not speak).
const char* PluginName(AccountPlugin plugin);
std::optional<AccountPlugin> PluginNamed(std::string_view name);

struct PasswordDigests {
  AccountPlugin plugin = AccountPlugin::kAny;
  std::string native;  // kAny, kNative: 20 bytes, or empty for an empty password
  // kAny: 32 bytes, or empty for an empty password. kCachingSha2: the fast-path digest once a
  // full authentication has proven the password (never written to disk), empty before.
  std::string sha2;
  // kCachingSha2: "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>" of the password, empty
  // for an empty password.
  std::string salted;

  // Whether a caching_sha2_password proof can be checked without the password itself.
  bool HasFastPath() const {
    return plugin != AccountPlugin::kCachingSha2 || !sha2.empty() || salted.empty();
  }
  bool Accepts(AccountPlugin client) const {
    return plugin == AccountPlugin::kAny || plugin == client;
  }
};

PasswordDigests DigestPassword(std::string_view password,
                               AccountPlugin plugin = AccountPlugin::kAny);
// The fast-path digest of a caching_sha2_password account, from the password.
std::string FastPathDigest(std::string_view password);

// The password a full authentication sent (already in clear: from TLS, or decrypted) checked
// against what the account keeps: its salted hash (kCachingSha2) or its digests. Every call
// costs one salted hash, whatever the account, and compares in constant time, so that neither
// the answer's time nor its text tells an account's kind or where the password differed. False
// for a malformed record.
bool VerifyClearPassword(const PasswordDigests& stored, std::string_view password);

// The password inside an RSA-decrypted full authentication: the client XORs the password and
// its terminating NUL with the nonce (repeated); nullopt when it does not end with that NUL.
std::optional<std::string> UnmaskPassword(std::string_view masked, std::string_view nonce);

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
