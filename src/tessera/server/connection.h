// One client connection: the protocol-10 handshake, authentication (auth.h), then commands
// until COM_QUIT, a closed socket, a deadline or the server's shutdown (docs/server.md).
//
// Packets are read with their 4-byte headers (3-byte length, sequence id); a logical packet of
// 16 MiB - 1 bytes or more continues in the next, and all of one must stay within
// max_allowed_packet. The server answers each command with sequence ids following the
// command's. A statement runs on the statement pool; the connection's coroutine waits for its
// payloads and sends them, so the network thread never blocks.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// Coroutines here take their arguments by reference to the caller's named locals and never
// co_await an expression holding temporaries with destructors: GCC 12 destroys such
// temporaries wrongly in coroutine frames (a double free was seen).

#include "tessera/server/client_statements.h"
#include "tessera/server/prepared_statements.h"
#include "tessera/server/process_list.h"
#include "tessera/server/server_state.h"
#include "tessera/sql/session.h"
#include "tessera/util/operation_control.h"

namespace tessera::server {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, Server::State& state, uint32_t id);

  asio::awaitable<void> Run();
  // Closes the connection when it is waiting for a command; otherwise after the command's
  // answer is sent.
  void RequestClose();

  // This connection's row of the process list.
  ProcessRow Describe() const;
  const std::string& user() const { return user_; }
  // KILL QUERY: the running statement ends with 1317 (a mutation's worker is killed and its
  // run classified; a read stops at its next batch of rows and its result is dropped). KILL
  // CONNECTION: that, and the connection is closed after it.
  void Kill(bool connection);

 private:
  asio::awaitable<bool> Handshake();
  asio::awaitable<bool> Authenticate(const std::string& user, const std::string& plugin,
                                     const std::string& response);
  // caching_sha2_password's full authentication, after perform_full_authentication: over
  // TLS the password in clear; else, after the client asked for it, the server's public key,
  // then the password encrypted with it (rsa_key.h). ReadFullAuthentication reads what the
  // client sends (on the network thread; `ended` when the connection ended);
  // VerifyFullAuthentication checks it against `digests` (on the statement pool).
  struct FullAuthentication {
    std::string user;
    PasswordDigests digests;
    bool ended = false;
    bool encrypted = false;  // RSA, without TLS
    std::string sent;
    bool verified = false;
  };
  asio::awaitable<void> ReadFullAuthentication(FullAuthentication& full);
  asio::awaitable<void> VerifyFullAuthentication(FullAuthentication& full);
  // One command; false when the connection is to end.
  asio::awaitable<bool> Command();
  asio::awaitable<void> Watchdog();

  // The next logical packet's payload; nullopt when the peer closed, the deadline passed or
  // the packet is over max_allowed_packet (then an ERR was sent).
  asio::awaitable<std::optional<std::string>> ReadPayload();
  asio::awaitable<void> Send(const std::vector<std::string>& payloads);
  // The socket's bytes, through TLS once the client asked for it.
  asio::awaitable<void> ReadExactly(asio::mutable_buffer buffer);
  asio::awaitable<void> WriteAll(asio::const_buffer buffer);
  asio::awaitable<void> SendOne(const std::string& payload);
  asio::awaitable<void> SendError(const arrow::Status& status);

  // Every payload of the answer to COM_QUERY `text`, into `out`: statements run on the
  // statement pool, mutations through state_.mutations (mutations.h).
  asio::awaitable<void> AnswerQuery(const std::string& text, std::vector<std::string>& out);
  struct PieceRun;
  asio::awaitable<void> AdvancePiece(PieceRun& run);         // on the statement pool
  asio::awaitable<void> Preflight(PieceRun& run);            // on the statement pool
  asio::awaitable<void> RunNetworkStatement(PieceRun& run);  // on the network thread
  // DROP TABLE / DATABASE: the lower-case directory prefix of the name entries it conflicts
  // with; empty for other statements (or names that do not resolve: the DROP reports those).
  std::string DropPrefix(const sql::Statement& statement) const;
  ClientContext MakeClientContext();
  // SHOW [FULL] PROCESSLIST and KILL [QUERY | CONNECTION] id, answered on the network thread
  // (they read other connections); nullopt for other statements.
  std::optional<arrow::Result<sql::StatementResult>> AnswerProcessStatement(
      const std::string& text);
  // The rows of the process list this connection's user may see: every connection for an
  // administrator, else the user's own (MySQL without the PROCESS privilege).
  std::vector<ProcessRow> VisibleProcesses() const;
  // COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / RESET / CLOSE (prepared_statements.h).
  asio::awaitable<void> PreparedStatementCommand(uint8_t command, const std::string& body);
  arrow::Status CheckPreparable(const std::string& text) const;
  void Fail(PieceRun& run, const arrow::Status& status);
  // What a connection waiting for a mutation's outcome holds (shared with the callback).
  struct Waiter {
    explicit Waiter(asio::any_io_executor executor) : timer(executor) {}
    asio::steady_timer timer;
    MutationOutcome outcome;
    bool done = false;
  };
  asio::awaitable<std::vector<std::string>> AnswerFieldListOnPool(const std::string& payload);
  std::vector<std::string> AnswerFieldList(const std::string& payload);
  void AppendResult(const sql::StatementResult& result, bool more, std::vector<std::string>* out);
  std::string ErrorOf(const arrow::Status& status) const;

  void SetDeadline(uint32_t seconds);
  void CloseSocket();

  asio::ip::tcp::socket socket_;
  // TLS over socket_ once the client asked for it (declared after socket_: destroyed first).
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_;
  Server::State& state_;
  const uint32_t id_;
  std::string peer_;
  std::string user_;
  std::string nonce_;
  std::string auth_method_;  // the plugin, and for caching_sha2 fast / full-tls / full-rsa
  uint32_t capabilities_ = 0;
  uint8_t sequence_ = 0;
  bool busy_ = false;  // a command is being answered (statement running or answer being sent)
  bool close_requested_ = false;
  std::string test_fault_;  // SET tessera_test_fault (test hooks only)
  static constexpr size_t kMaxPreparedStatements = 1024;
  std::map<uint32_t, PreparedStatement> prepared_;
  uint32_t next_statement_id_ = 1;
  bool binary_results_ = false;  // a prepared statement's EXECUTE is being answered
  bool kill_query_ = false;      // KILL QUERY arrived for the running statement
  // Cancels the running command's reads (a new one per command; touched on the network thread).
  std::shared_ptr<util::OperationControl> read_control_;
  std::string statement_kind_;  // of the running statement, for SHOW PROCESSLIST
  // information_schema.PROCESSLIST as it was when the running piece arrived; taken (on the
  // network thread) only for a piece that names information_schema.
  std::shared_ptr<arrow::Table> process_list_snapshot_;
  std::chrono::steady_clock::time_point command_started_ = std::chrono::steady_clock::now();
  sql::Session session_;
};

}  // namespace tessera::server
