// What the server's connections share (server.cc owns it; connection.cc uses it). Everything
// here is touched only from the network thread, except the statement pool and the counters.
#pragma once

#include <asio.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>

#include "tessera/server/mutations.h"
#include "tessera/server/rsa_key.h"
#include "tessera/server/server.h"
#include "tessera/server/tls_context.h"
#include "tessera/server/user_store.h"
#include "tessera/sql/catalog.h"

namespace tessera::server {

class Connection;

struct Server::State {
  State(ServerOptions options, sql::Catalog catalog, std::unique_ptr<UserStore> users)
      : options(std::move(options)),
        catalog(std::move(catalog)),
        users(std::move(users)),
        statements(this->options.statement_threads),
        acceptor(network),
        signals(network),
        mutations(network, statements, this->options) {}

  ServerOptions options;
  sql::Catalog catalog;
  std::unique_ptr<UserStore> users;
  std::shared_ptr<asio::ssl::context> tls;  // null without tls_cert / tls_key
  std::shared_ptr<RsaKey> rsa_key;
  asio::io_context network;
  asio::thread_pool statements;
  asio::ip::tcp::acceptor acceptor;
  asio::signal_set signals;
  Mutations mutations;
  std::set<std::shared_ptr<Connection>> connections;
  bool stopping = false;
  uint32_t next_connection_id = 1;
  std::atomic<uint64_t> questions{0};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // What an unknown user's proof is checked against: digests of a random password, made once,
  // so that an unknown user costs the same as a known one.
  PasswordDigests unknown_user_digests = DigestPassword(MakeNonce());
};

}  // namespace tessera::server
