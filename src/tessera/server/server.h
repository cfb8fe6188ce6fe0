// `tessera serve`: the MySQL-protocol server over a catalog (docs/server.md).
//
// One thread runs the network (Asio, one coroutine per connection: handshake, authentication,
// the command loop, an idle / handshake deadline watched by a timer); statements run on a pool
// of statement threads, so a long statement never stalls other connections. Each connection
// has its own sql::Session (its current database); statements commit on their own.
//
// Limits: at most max_connections connections (the next one is told MySQL's 1040 and closed),
// packets up to max_allowed_packet (1153, then closed), a handshake deadline and an idle
// deadline (the connection is closed). SIGTERM / SIGINT, or Stop(): no new connections, idle
// ones are closed, running statements finish and their results are sent, then Run() returns.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <memory>
#include <string>

namespace tessera::server {

struct ServerOptions {
  std::string catalog_root;
  std::string catalog_name = "tessera";
  std::string host = "127.0.0.1";
  uint16_t port = 9030;  // 0: any free port (port() says which)
  uint32_t max_connections = 151;
  uint32_t handshake_timeout_seconds = 10;
  uint32_t idle_timeout_seconds = 28800;
  uint64_t max_allowed_packet = 64ull << 20;
  uint32_t statement_threads = 4;
  // What one statement's query operators and result may hold (sql::Session's statement memory
  // limit); 0: no limit.
  uint64_t query_memory_limit = 2ull << 30;
  bool handle_signals = true;  // SIGTERM / SIGINT stop the server
  // Mutations (docs/server.md, "Mutations"): run in isolated workers, at most max_mutations
  // at once (max_mutations_per_database in one database), mutation_queue more waiting.
  uint32_t max_mutations = 2;
  uint32_t max_mutations_per_database = 2;
  uint32_t mutation_queue = 16;
  uint32_t mutation_budget_seconds = 3600;  // admission, queue, worker and refresh together
  uint64_t worker_memory_bytes = 4ull << 30;
  uint32_t worker_max_processes = 256;  // processes and threads of one worker
  std::string cgroup_mount = "/sys/fs/cgroup";
  // TLS (tls_context.h): the certificate chain and its key, PEM files; both or neither. With
  // require_secure_transport a client that does not ask for TLS is refused (3159).
  std::string tls_cert;
  std::string tls_key;
  bool require_secure_transport = false;
  // The RSA key of caching_sha2_password's full authentication (rsa_key.h); empty: one is made
  // at startup.
  std::string rsa_private_key;
  bool test_fault_hooks = false;  // TESSERA_TEST_FAULT_HOOKS=1 in the server's environment
};

class Server {
 public:
  // Opens the catalog and its users (user_store.h) and binds the listening socket.
  static arrow::Result<std::unique_ptr<Server>> Start(ServerOptions options);
  ~Server();

  uint16_t port() const;
  // Serves until Stop() or a signal; then waits for running statements.
  arrow::Status Run();
  // Thread-safe; Run() returns once connections are done.
  void Stop();

  struct State;

 private:
  explicit Server(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace tessera::server
