// The server's RSA key pair, with which a client without TLS sends a caching_sha2_password
// account its password during a full authentication (auth.h): the client asks for the public
// key (PEM), XORs the password and its NUL with the connection's nonce, encrypts that with
// RSA-OAEP (SHA-1, as MySQL's clients do) and the server decrypts it here.
//
// The key is read from the file `rsa_private_key` of the config (PEM, readable by the server
// only), or made at startup when none is configured (2048 bits, kept in memory only: each
// start has a new one, which clients fetch again). The private key never leaves this object.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::server {

class RsaKey {
 public:
  static arrow::Result<std::shared_ptr<RsaKey>> Generate();
  static arrow::Result<std::shared_ptr<RsaKey>> Load(const std::string& pem_path);
  ~RsaKey();
  RsaKey(const RsaKey&) = delete;
  RsaKey& operator=(const RsaKey&) = delete;

  // The public key as a PEM "PUBLIC KEY" block, what clients ask for.
  const std::string& public_pem() const { return public_pem_; }
  // The plaintext of an RSA-OAEP ciphertext; nullopt when it does not decrypt.
  std::optional<std::string> Decrypt(std::string_view ciphertext) const;

 private:
  struct Key;
  explicit RsaKey(std::unique_ptr<Key> key, std::string public_pem);
  std::unique_ptr<Key> key_;
  std::string public_pem_;
};

}  // namespace tessera::server
