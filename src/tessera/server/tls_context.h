// The server's TLS: one OpenSSL context (through Asio's ssl::context) made at startup from the
// certificate chain and private key files the config names (`tls_cert`, `tls_key`, PEM). With
// it the server offers CLIENT_SSL in its handshake; a client that asks upgrades the connection
// before it sends its credentials (docs/server.md, "TLS"). TLS 1.2 or newer only.
//
// Startup fails, naming the file, when either cannot be read, the key does not match the
// certificate, or only one of the two is configured.
#pragma once

#include <arrow/result.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <memory>
#include <string>

namespace tessera::server {

arrow::Result<std::shared_ptr<asio::ssl::context>> MakeTlsContext(const std::string& cert_path,
                                                                  const std::string& key_path);

}  // namespace tessera::server
