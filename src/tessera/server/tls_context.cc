#include "tessera/server/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tessera/status.h"

namespace tessera::server {

arrow::Result<std::shared_ptr<asio::ssl::context>> MakeTlsContext(const std::string& cert_path,
                                                                  const std::string& key_path) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  asio::error_code error;
  context->use_certificate_chain_file(cert_path, error);
  if (error) {
    return InvalidArgument("tls_cert: cannot use ", cert_path, " (", error.message(),
                           "); name a PEM file with the server's certificate chain");
  }
  context->use_private_key_file(key_path, asio::ssl::context::pem, error);
  if (error) {
    return InvalidArgument("tls_key: cannot use ", key_path, " (", error.message(),
                           "); name an unencrypted PEM file with the certificate's private key");
  }
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    return InvalidArgument("tls_key: the key in ", key_path,
                           " does not belong to the certificate in ", cert_path);
  }
  return context;
}

}  // namespace tessera::server
