#include "tessera/server/server.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "tessera/expr/evaluator.h"
#include "tessera/server/connection.h"
#include "tessera/server/protocol.h"
#include "tessera/server/server_state.h"
#include "tessera/server/wire.h"
#include "tessera/sql/errors.h"
#include "tessera/status.h"

namespace tessera::server {

namespace {

using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

// MySQL's answer to one connection too many: an ERR as the first packet, then close.
awaitable<void> RefuseConnection(tcp::socket socket) {
  PayloadWriter packet;
  // Before the handshake an ERR carries no SQL state (clients would print "#08004" as text).
  PayloadWriter error_payload;
  error_payload.U8(0xFF).U16(1040).Bytes("Too many connections");
  const std::string payload = error_payload.Take();
  packet.U24(static_cast<uint32_t>(payload.size())).U8(0).Bytes(payload);
  asio::error_code error;
  co_await asio::async_write(socket, asio::buffer(packet.payload()),
                             asio::redirect_error(use_awaitable, error));
  socket.close(error);
}

awaitable<void> Accept(Server::State& state) {
  while (!state.stopping) {
    asio::error_code error;
    tcp::socket socket =
        co_await state.acceptor.async_accept(asio::redirect_error(use_awaitable, error));
    if (error) {
      if (state.stopping || error == asio::error::operation_aborted) co_return;
      // A failed accept (the peer gave up, out of descriptors) ends nothing else; a pause
      // keeps a persistent failure from spinning.
      asio::steady_timer pause(state.network, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(use_awaitable, error));
      continue;
    }
    if (state.connections.size() >= state.options.max_connections) {
      asio::co_spawn(state.network, RefuseConnection(std::move(socket)), asio::detached);
      continue;
    }
    auto connection =
        std::make_shared<Connection>(std::move(socket), state, state.next_connection_id++);
    state.connections.insert(connection);
    asio::co_spawn(
        state.network,
        [&state, connection]() -> awaitable<void> {
          co_await connection->Run();
          state.connections.erase(connection);
        },
        asio::detached);
  }
}

void BeginStop(Server::State& state) {
  if (state.stopping) return;
  state.stopping = true;
  asio::error_code ignored;
  state.acceptor.close(ignored);
  state.signals.cancel(ignored);
  // Copies: a connection that closes at once leaves the set while it is walked.
  const auto connections = state.connections;
  for (const auto& connection : connections) connection->RequestClose();
}

}  // namespace

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}
Server::~Server() = default;

arrow::Result<std::unique_ptr<Server>> Server::Start(ServerOptions options) {
  if (options.statement_threads == 0 || options.max_connections == 0) {
    return InvalidArgument("statement_threads and max_connections must be at least 1");
  }
  // Arrow registers its compute functions without locking out readers: do it before any
  // connection's thread looks one up, not on the first statement that needs them.
  RETURN_NOT_OK(expr::EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(auto catalog,
                        sql::Catalog::Open(options.catalog_root, options.catalog_name));
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return InvalidArgument("TLS needs both tls_cert and tls_key (",
                           options.tls_cert.empty() ? "tls_cert" : "tls_key", " is missing)");
  }
  if (options.require_secure_transport && options.tls_cert.empty()) {
    return InvalidArgument(
        "require_secure_transport = on needs TLS: set tls_cert and tls_key as well");
  }
  std::shared_ptr<asio::ssl::context> tls;
  if (!options.tls_cert.empty()) {
    ARROW_ASSIGN_OR_RAISE(tls, MakeTlsContext(options.tls_cert, options.tls_key));
  }
  std::shared_ptr<RsaKey> rsa_key;
  if (options.rsa_private_key.empty()) {
    ARROW_ASSIGN_OR_RAISE(rsa_key, RsaKey::Generate());
  } else {
    ARROW_ASSIGN_OR_RAISE(rsa_key, RsaKey::Load(options.rsa_private_key));
  }
  ARROW_ASSIGN_OR_RAISE(auto users, UserStore::Open(options.catalog_root));
  // The root password is not left where /proc/<pid>/environ would show it.
  ::unsetenv(kRootPasswordVariable);
  // A worker that dies before it read its whole request must not take the server with it:
  // writes to its pipe fail with EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
  const char* hooks = std::getenv("TESSERA_TEST_FAULT_HOOKS");
  options.test_fault_hooks = hooks != nullptr && std::string(hooks) == "1";
  auto state = std::make_unique<State>(std::move(options), std::move(catalog), std::move(users));
  state->tls = std::move(tls);
  state->rsa_key = std::move(rsa_key);
  state->mutations.ProbeIsolation();
  std::fprintf(
      stderr, "tessera serve: mutation workers: %s%s\n",
      state->mutations.DescribeIsolation().c_str(),
      state->options.test_fault_hooks ? " (TEST FAULT HOOKS ON: never in production)" : "");
  asio::error_code error;
  const auto address = asio::ip::make_address(state->options.host, error);
  if (error) {
    return InvalidArgument("cannot listen on '", state->options.host, "': not an IP address (",
                           error.message(), ")");
  }
  const tcp::endpoint endpoint(address, state->options.port);
  state->acceptor.open(endpoint.protocol(), error);
  if (!error) state->acceptor.set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) state->acceptor.bind(endpoint, error);
  if (!error) state->acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return Error(ErrorKind::kIOError, "cannot listen on ", state->options.host, ":",
                 state->options.port, ": ", error.message());
  }
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

uint16_t Server::port() const { return state_->acceptor.local_endpoint().port(); }

arrow::Status Server::Run() {
  State& state = *state_;
  if (state.options.handle_signals) {
    state.signals.add(SIGTERM);
    state.signals.add(SIGINT);
    state.signals.async_wait([&state](const asio::error_code& error, int) {
      if (!error) BeginStop(state);
    });
  }
  asio::co_spawn(state.network, Accept(state), asio::detached);
  state.network.run();
  state.statements.join();
  return arrow::Status::OK();
}

void Server::Stop() {
  asio::post(state_->network, [state = state_.get()] { BeginStop(*state); });
}

}  // namespace tessera::server
