#include "tessera/server/rsa_key.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdio>

#include "tessera/status.h"

namespace tessera::server {

struct RsaKey::Key {
  EVP_PKEY* pkey = nullptr;
  ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

// OpenSSL's last error as text (and its queue emptied).
std::string OpenSslError() {
  char text[256] = "unknown error";
  const unsigned long code = ERR_get_error();
  if (code != 0) ERR_error_string_n(code, text, sizeof(text));
  ERR_clear_error();
  return text;
}

arrow::Result<std::string> PublicPem(EVP_PKEY* pkey) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr || PEM_write_bio_PUBKEY(bio, pkey) != 1) {
    BIO_free(bio);
    return Error(ErrorKind::kInternal, "cannot write the RSA public key: ", OpenSslError());
  }
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(length));
  BIO_free(bio);
  return pem;
}

}  // namespace

RsaKey::RsaKey(std::unique_ptr<Key> key, std::string public_pem)
    : key_(std::move(key)), public_pem_(std::move(public_pem)) {}

RsaKey::~RsaKey() = default;

arrow::Result<std::shared_ptr<RsaKey>> RsaKey::Generate() {
  auto key = std::make_unique<Key>();
  key->pkey = EVP_RSA_gen(2048);
  if (key->pkey == nullptr) {
    return Error(ErrorKind::kInternal, "cannot make the server's RSA key: ", OpenSslError());
  }
  ARROW_ASSIGN_OR_RAISE(auto pem, PublicPem(key->pkey));
  return std::shared_ptr<RsaKey>(new RsaKey(std::move(key), std::move(pem)));
}

arrow::Result<std::shared_ptr<RsaKey>> RsaKey::Load(const std::string& pem_path) {
  std::FILE* file = std::fopen(pem_path.c_str(), "re");
  if (file == nullptr) {
    return InvalidArgument("rsa_private_key: cannot read ", pem_path,
                           "; name a PEM file holding the server's RSA private key");
  }
  auto key = std::make_unique<Key>();
  key->pkey = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  if (key->pkey == nullptr || EVP_PKEY_base_id(key->pkey) != EVP_PKEY_RSA) {
    return InvalidArgument("rsa_private_key: ", pem_path,
                           " holds no unencrypted RSA private key in PEM (",
                           key->pkey == nullptr ? OpenSslError() : "not an RSA key",
                           "); make one with `openssl genrsa -out ", pem_path, " 2048`");
  }
  if (EVP_PKEY_get_bits(key->pkey) < 2048) {
    return InvalidArgument("rsa_private_key: the key in ", pem_path, " has ",
                           EVP_PKEY_get_bits(key->pkey), " bits; use at least 2048");
  }
  ARROW_ASSIGN_OR_RAISE(auto pem, PublicPem(key->pkey));
  return std::shared_ptr<RsaKey>(new RsaKey(std::move(key), std::move(pem)));
}

std::optional<std::string> RsaKey::Decrypt(std::string_view ciphertext) const {
  EVP_PKEY_CTX* context = EVP_PKEY_CTX_new(key_->pkey, nullptr);
  std::optional<std::string> plain;
  size_t length = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(ciphertext.data());
  if (context != nullptr && EVP_PKEY_decrypt_init(context) == 1 &&
      EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1 &&
      EVP_PKEY_decrypt(context, nullptr, &length, in, ciphertext.size()) == 1) {
    std::string out(length, '\0');
    if (EVP_PKEY_decrypt(context, reinterpret_cast<unsigned char*>(out.data()), &length, in,
                         ciphertext.size()) == 1) {
      out.resize(length);
      plain = std::move(out);
    }
  }
  EVP_PKEY_CTX_free(context);
  ERR_clear_error();  // a bad ciphertext leaves an error that is not the next caller's
  return plain;
}

}  // namespace tessera::server
