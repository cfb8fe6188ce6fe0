#include "tessera/server/connection.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "tessera/query/snapshot.h"
#include "tessera/server/account_statements.h"
#include "tessera/server/auth.h"
#include "tessera/server/client_statements.h"
#include "tessera/server/prepared_statements.h"
#include "tessera/server/protocol.h"
#include "tessera/server/result_set.h"
#include "tessera/server/wire.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/names.h"
#include "tessera/sql/parser.h"
#include "tessera/util/operation_control.h"

namespace tessera::server {

namespace {

using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxPacketPayload = 0xFFFFFF;
constexpr uint64_t kMaxUnauthenticatedPacket = 64 * 1024;
constexpr size_t kReadChunk = 1 << 20;

// The statement's first word, upper case, for the log ("SELECT", "CREATE", ...): never its
// text, which may hold vectors or secrets.
std::string StatementKind(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && !std::isalpha(static_cast<unsigned char>(text[begin]))) ++begin;
  size_t end = begin;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  return sql::AsciiUpper(text.substr(begin, std::min<size_t>(end - begin, 16)));
}

// A name a client sent, safe for one log line: printable ASCII is kept, every other byte, the
// space and the backslash become \xNN (the user name of a malformed handshake may hold
// anything, newlines included).
std::string LogSafe(std::string_view text) {
  if (text.empty()) return "-";
  std::string out;
  for (unsigned char c : text.substr(0, 64)) {
    if (c > 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

void Log(uint32_t connection, const std::string& user, std::string_view event,
         std::string_view detail) {
  const std::string safe_user = LogSafe(user);
  std::fprintf(stderr, "tessera serve: connection=%u user=%s %.*s %.*s\n", connection,
               safe_user.c_str(), static_cast<int>(event.size()), event.data(),
               static_cast<int>(detail.size()), detail.data());
}

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, Server::State& state, uint32_t id)
    : socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      state_(state),
      id_(id),
      session_(state.catalog) {
  asio::error_code error;
  auto endpoint = socket_.remote_endpoint(error);
  peer_ = error ? std::string("unknown") : endpoint.address().to_string();
  session_.set_statement_memory_limit(static_cast<int64_t>(state.options.query_memory_limit));
}

void Connection::SetDeadline(uint32_t seconds) {
  deadline_ = Clock::now() + std::chrono::seconds(seconds);
  timer_.cancel();  // the watchdog re-arms for the new deadline
}

void Connection::CloseSocket() {
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  timer_.cancel();
}

void Connection::RequestClose() {
  close_requested_ = true;
  if (!busy_) CloseSocket();
}

awaitable<void> Connection::Watchdog() {
  auto self = shared_from_this();
  while (socket_.is_open()) {
    // While a command is answered there is no deadline: a running statement is never cut, and
    // its answer is sent whole; the next SetDeadline wakes the watchdog.
    if (busy_) {
      timer_.expires_at(Clock::time_point::max());
    } else {
      timer_.expires_at(deadline_);
    }
    asio::error_code error;
    co_await timer_.async_wait(asio::redirect_error(use_awaitable, error));
    if (!socket_.is_open()) break;
    if (!busy_ && Clock::now() >= deadline_) {
      Log(id_, user_, "closed", "reason=timeout");
      CloseSocket();
    }
  }
}

awaitable<void> Connection::Run() {
  auto self = shared_from_this();
  SetDeadline(state_.options.handshake_timeout_seconds);
  asio::co_spawn(socket_.get_executor(), Watchdog(), asio::detached);
  try {
    if (co_await Handshake()) {
      while (!close_requested_ && co_await Command()) {
      }
    }
  } catch (const std::exception&) {
    // A socket error (the peer left, the deadline closed it) ends the connection.
  }
  CloseSocket();
}

awaitable<std::optional<std::string>> Connection::ReadPayload() {
  std::string payload;
  while (true) {
    // A std::array: GCC 12 cannot keep a plain array in a coroutine frame.
    std::array<uint8_t, 4> header{};
    co_await ReadExactly(asio::buffer(header));
    const size_t length = header[0] | (header[1] << 8) | (header[2] << 16);
    sequence_ = static_cast<uint8_t>(header[3] + 1);
    // Before authentication a packet is a handshake response or an auth answer: small.
    const uint64_t limit = user_.empty() ? std::min<uint64_t>(kMaxUnauthenticatedPacket,
                                                              state_.options.max_allowed_packet)
                                         : state_.options.max_allowed_packet;
    if (payload.size() + length > limit) {
      const arrow::Status too_large =
          sql::SqlError(sql::SqlCode::kPacketTooLarge, ErrorKind::kResourceExhausted,
                        "Got a packet bigger than 'max_allowed_packet' bytes (", limit, ")");
      co_await SendError(too_large);
      co_return std::nullopt;
    }
    // The buffer grows with the bytes that arrive, not with the length a header claims.
    size_t left = length;
    while (left > 0) {
      const size_t at = payload.size();
      const size_t chunk = std::min(left, kReadChunk);
      payload.resize(at + chunk);
      co_await ReadExactly(asio::buffer(payload.data() + at, chunk));
      left -= chunk;
    }
    if (length < kMaxPacketPayload) co_return payload;
  }
}

awaitable<void> Connection::Send(const std::vector<std::string>& payloads) {
  std::string bytes;
  for (const auto& payload : payloads) {
    size_t at = 0;
    // A payload of a multiple of 16 MiB - 1 ends with an empty packet.
    while (true) {
      const size_t length = std::min(payload.size() - at, kMaxPacketPayload);
      PayloadWriter header;
      header.U24(static_cast<uint32_t>(length)).U8(sequence_++);
      bytes += header.payload();
      bytes.append(payload, at, length);
      at += length;
      if (length < kMaxPacketPayload) break;
    }
  }
  co_await WriteAll(asio::buffer(bytes));
}

awaitable<void> Connection::ReadExactly(asio::mutable_buffer buffer) {
  if (tls_ != nullptr) {
    co_await asio::async_read(*tls_, buffer, use_awaitable);
  } else {
    co_await asio::async_read(socket_, buffer, use_awaitable);
  }
}

awaitable<void> Connection::WriteAll(asio::const_buffer buffer) {
  if (tls_ != nullptr) {
    co_await asio::async_write(*tls_, buffer, use_awaitable);
  } else {
    co_await asio::async_write(socket_, buffer, use_awaitable);
  }
}

std::string Connection::ErrorOf(const arrow::Status& status) const {
  const sql::SqlCode code = sql::CodeOf(status);
  return ErrorPayload(static_cast<int>(code), sql::SqlStateOf(code), status.message());
}

awaitable<void> Connection::SendOne(const std::string& payload) {
  std::vector<std::string> payloads;  // not = {payload}: GCC 12 rejects that in a coroutine
  payloads.push_back(payload);
  co_await Send(payloads);
}

awaitable<void> Connection::SendError(const arrow::Status& status) {
  const std::string payload = ErrorOf(status);
  co_await SendOne(payload);
}

awaitable<bool> Connection::Handshake() {
  nonce_ = MakeNonce();
  sequence_ = 0;
  const uint32_t offered =
      kServerCapabilities | (state_.tls != nullptr ? static_cast<uint32_t>(kClientSsl) : 0u);
  const std::string greeting = HandshakePayload(id_, nonce_, offered);
  co_await SendOne(greeting);
  auto payload = co_await ReadPayload();
  if (!payload) co_return false;
  if (state_.tls != nullptr && IsSslRequest(*payload)) {
    // The rest of the connection, credentials first, goes over TLS (within the handshake
    // deadline, which the watchdog keeps).
    tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *state_.tls);
    co_await tls_->async_handshake(asio::ssl::stream_base::server, use_awaitable);
    payload = co_await ReadPayload();
    if (!payload) co_return false;
  }
  auto response = ParseHandshakeResponse(*payload);
  if (!response || ((response->capabilities & kClientSsl) != 0 && tls_ == nullptr)) {
    const arrow::Status bad =
        sql::SqlError(sql::SqlCode::kBadHandshake, ErrorKind::kInvalidArgument, "Bad handshake");
    co_await SendError(bad);
    co_return false;
  }
  if (state_.options.require_secure_transport && tls_ == nullptr) {
    Log(id_, response->user, "refused", "reason=insecure-transport from=" + peer_);
    const arrow::Status insecure = sql::SqlError(
        sql::SqlCode::kSecureTransportRequired, ErrorKind::kInvalidArgument,
        "Connections using insecure transport are prohibited while "
        "--require_secure_transport=ON; connect with TLS (mariadb --ssl, PyMySQL ssl=...)");
    co_await SendError(insecure);
    co_return false;
  }
  capabilities_ = response->capabilities & offered;
  if (!co_await Authenticate(response->user, response->plugin, response->auth_response)) {
    co_return false;
  }
  if (!response->database.empty()) {
    auto used = session_.ExecuteAll(UseStatement(response->database));
    if (!used.ok()) {
      const arrow::Status failed = used.status();
      co_await SendError(failed);
      co_return false;
    }
  }
  const std::string ok = OkPayload(OkInfo{});
  co_await SendOne(ok);
  Log(id_, user_, "connected",
      "from=" + peer_ + (tls_ != nullptr ? " tls=on" : " tls=off") + " auth=" + auth_method_);
  co_return true;
}

awaitable<bool> Connection::Authenticate(const std::string& user, const std::string& requested,
                                         const std::string& first_response) {
  std::string response = first_response;
  auto stored = state_.users->Find(user);
  // An unknown user is checked against digests no password has, so that the answer and its
  // time do not tell an unknown user from a wrong password.
  const PasswordDigests& digests = stored ? *stored : state_.unknown_user_digests;
  // The plugin the proof must come with: the client's when the account accepts it, else the
  // account's own (as MySQL switches to it), else mysql_native_password for a plugin the
  // server does not speak.
  const auto client_plugin = PluginNamed(requested.empty() ? kNativePassword : requested);
  AccountPlugin plugin = AccountPlugin::kNative;
  if (client_plugin && *client_plugin != AccountPlugin::kAny && digests.Accepts(*client_plugin)) {
    plugin = *client_plugin;
  } else if (digests.plugin != AccountPlugin::kAny) {
    plugin = digests.plugin;
  }
  // A client that sent no proof with its plugin (libmariadb does so when the handshake named
  // another plugin) is asked again with the same one; one whose plugin is switched answers the
  // switch with its proof.
  if (client_plugin != plugin ||
      (response.empty() && (plugin != AccountPlugin::kNative || !digests.native.empty()))) {
    const std::string switch_request = AuthSwitchPayload(PluginName(plugin), nonce_);
    co_await SendOne(switch_request);
    auto answer = co_await ReadPayload();
    if (!answer) co_return false;
    response = *answer;
    // Clients end the proof with the NUL the nonce was sent with.
    if (response.size() == 1 && response[0] == '\0') response.clear();
  }
  bool verified = false;
  if (plugin == AccountPlugin::kCachingSha2) {
    verified = VerifyCachingSha2Password(digests, nonce_, response);
    auth_method_ = "caching_sha2_password/fast";
    if (verified) {
      // fast_auth_success, then the OK; MySQL sends none for an empty password.
      const std::string fast(1, kFastAuthSuccess);
      const std::string fast_auth_success = AuthMoreDataPayload(fast);
      if (stored && !digests.sha2.empty()) co_await SendOne(fast_auth_success);
    } else {
      // No fast-path digest yet, or a proof that does not verify: full authentication, the
      // client sends the password itself (auth.h).
      const std::string perform_full(1, kPerformFullAuthentication);
      const std::string more = AuthMoreDataPayload(perform_full);
      co_await SendOne(more);
      FullAuthentication full;
      full.user = user;
      full.digests = digests;
      co_await ReadFullAuthentication(full);
      if (full.ended) co_return false;
      // The RSA decryption and the salted hash take milliseconds: on the statement pool, so
      // that logins do not stall the network thread's other connections.
      co_await asio::co_spawn(state_.statements, VerifyFullAuthentication(full), use_awaitable);
      verified = full.verified;
      auth_method_ =
          tls_ != nullptr ? "caching_sha2_password/full-tls" : "caching_sha2_password/full-rsa";
    }
  } else {
    verified = VerifyNativePassword(digests, nonce_, response);
    auth_method_ = kNativePassword;
  }
  if (verified && stored) {
    user_ = user;
    // Every table a statement touches is checked against the user's privileges (the server's
    // worker runs a statement already checked here, as the system).
    session_.set_authorizer(
        [this](sql::Access access, const std::string& database, const std::string& table) {
          if (access == sql::Access::kReadFile) {
            // Files are read as the server's own user: only administrators may name them.
            if (state_.users->IsAdministrator(user_)) return arrow::Status::OK();
            return AccessDenied(access, user_, peer_, database, table);
          }
          const uint8_t privilege = access == sql::Access::kSelect ? kPrivilegeSelect
                                    : access == sql::Access::kShow ? kPrivilegeShow
                                                                   : kPrivilegeAlter;
          if (state_.users->Allowed(user_, privilege, database, table)) return arrow::Status::OK();
          return AccessDenied(access, user_, peer_, database, table);
        });
    // information_schema.PROCESSLIST: the snapshot taken when the statement arrived.
    session_.set_information_schema(
        [this](const std::string& table) -> arrow::Result<std::shared_ptr<arrow::Table>> {
          if (table != "processlist") {
            return Error(ErrorKind::kNotFound, "no table information_schema.", table);
          }
          if (process_list_snapshot_ == nullptr) {
            return Error(ErrorKind::kInternal,
                         "information_schema.PROCESSLIST was read without its snapshot");
          }
          return process_list_snapshot_;
        });
    co_return true;
  }
  Log(id_, user, "denied", "from=" + peer_);
  const arrow::Status denied = sql::SqlError(
      sql::SqlCode::kAccessDenied, ErrorKind::kInvalidArgument, "Access denied for user '", user,
      "'@'", peer_, "' (using password: ", response.empty() ? "NO" : "YES", ")");
  co_await SendError(denied);
  co_return false;
}

awaitable<void> Connection::ReadFullAuthentication(FullAuthentication& full) {
  auto answer = co_await ReadPayload();
  if (!answer) {
    full.ended = true;
    co_return;
  }
  full.encrypted = tls_ == nullptr;
  if (full.encrypted && answer->size() == 1 && (*answer)[0] == kRequestPublicKey) {
    const std::string key = AuthMoreDataPayload(state_.rsa_key->public_pem());
    co_await SendOne(key);
    answer = co_await ReadPayload();
    if (!answer) {
      full.ended = true;
      co_return;
    }
  }
  full.sent = std::move(*answer);
}

awaitable<void> Connection::VerifyFullAuthentication(FullAuthentication& full) {
  std::optional<std::string> password;
  if (!full.encrypted) {  // the password in clear, with its NUL, inside TLS
    password = full.sent;
    if (!password->empty() && password->back() == '\0') password->pop_back();
  } else if (auto masked = state_.rsa_key->Decrypt(full.sent)) {
    // Anything else than the password encrypted with the key (a password in clear outside
    // TLS among them) proves nothing.
    password = UnmaskPassword(*masked, nonce_);
  }
  full.verified = password && VerifyClearPassword(full.digests, *password);
  if (full.verified) state_.users->RememberFastPath(full.user, full.digests.salted, *password);
  co_return;
}

awaitable<bool> Connection::Command() {
  SetDeadline(state_.options.idle_timeout_seconds);
  auto payload = co_await ReadPayload();
  if (!payload || payload->empty()) co_return false;
  const uint8_t command = static_cast<uint8_t>((*payload)[0]);
  const std::string body = payload->substr(1);
  switch (command) {
    case kComQuit:
      co_return false;
    case kComStmtPrepare:
    case kComStmtExecute:
    case kComStmtSendLongData:
    case kComStmtClose:
    case kComStmtReset:
      co_await PreparedStatementCommand(command, body);
      co_return true;
    case kComResetConnection:
      prepared_.clear();
      [[fallthrough]];
    case kComPing: {
      const std::string ok = OkPayload(OkInfo{});
      co_await SendOne(ok);
      co_return true;
    }
    case kComStatistics: {
      const auto uptime =
          std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - state_.started);
      const std::string statistics =
          Concat("Uptime: ", uptime.count(), "  Threads: ", state_.connections.size(),
                 "  Questions: ", state_.questions.load(),
                 "  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0");
      co_await SendOne(statistics);
      co_return true;
    }
    case kComInitDb:
    case kComQuery:
    case kComFieldList: {
      ++state_.questions;
      const std::string text = command == kComInitDb ? UseStatement(body) : body;
      const auto started = Clock::now();
      command_started_ = started;
      statement_kind_ = command == kComFieldList ? std::string("FIELD_LIST") : StatementKind(text);
      kill_query_ = false;
      read_control_ = std::make_shared<util::OperationControl>();
      busy_ = true;
      auto self = shared_from_this();
      std::vector<std::string> answer;
      if (command == kComFieldList) {
        answer =
            co_await asio::co_spawn(state_.statements, AnswerFieldListOnPool(text), use_awaitable);
      } else {
        co_await AnswerQuery(text, answer);
      }
      const bool failed = !answer.empty() && !answer.back().empty() &&
                          static_cast<uint8_t>(answer.back()[0]) == 0xFF;
      co_await Send(answer);
      busy_ = false;
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count();
      Log(id_, user_, "statement",
          Concat(
              "kind=", command == kComFieldList ? std::string("FIELD_LIST") : StatementKind(text),
              " duration_ms=", micros / 1000.0, " outcome=", failed ? "error" : "ok"));
      co_return true;
    }
    default:
      const arrow::Status unknown = sql::SqlError(
          sql::SqlCode::kUnknownCommand, ErrorKind::kUnsupported, "Unknown command ",
          static_cast<int>(command), " (cursors, COM_STMT_FETCH, and replication are not served)");
      co_await SendError(unknown);
      co_return true;
  }
}

void Connection::AppendResult(const sql::StatementResult& result, bool more,
                              std::vector<std::string>* out) {
  const uint16_t status = kStatusAutocommit | (more ? kStatusMoreResults : 0);
  const bool deprecate_eof = (capabilities_ & kClientDeprecateEof) != 0;
  if (result.rows == nullptr) {
    OkInfo ok;
    ok.affected_rows = result.affected_rows;
    ok.status = status;
    ok.info = result.info;
    if (result.version && !result.info_only) {
      ok.info += (ok.info.empty() ? "" : "; ") + Concat("version ", *result.version);
    }
    out->push_back(OkPayload(ok));
    return;
  }
  const auto& schema = *result.rows->schema();
  PayloadWriter count;
  count.LengthEncoded(schema.num_fields());
  out->push_back(count.Take());
  for (auto& column : ColumnDefinitionPayloads(schema, session_.current_database(), "")) {
    out->push_back(std::move(column));
  }
  if (!deprecate_eof) out->push_back(EofPayload(status));
  arrow::TableBatchReader reader(*result.rows);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (reader.ReadNext(&batch).ok() && batch != nullptr) {
    if (binary_results_) {
      AppendBinaryRows(*batch, out);
    } else {
      AppendTextRows(*batch, out);
    }
  }
  out->push_back(deprecate_eof ? EndOfRowsOkPayload(status) : EofPayload(status));
}

awaitable<void> Connection::PreparedStatementCommand(uint8_t command, const std::string& body) {
  ++state_.questions;
  PayloadReader in(body);
  if (command == kComStmtPrepare) {
    std::vector<std::string> answer;
    const arrow::Status checked = CheckPreparable(body);
    if (!checked.ok()) {
      co_await SendError(checked);
      co_return;
    }
    PreparedStatement statement = Prepare(body);
    const auto parameters = static_cast<uint16_t>(statement.placeholders.size());
    const uint32_t id = next_statement_id_++;
    prepared_[id] = std::move(statement);
    answer.push_back(PrepareOkPayload(id, 0, parameters));
    if (parameters > 0) {
      arrow::FieldVector fields(parameters, arrow::field("?", arrow::utf8()));
      for (auto& definition : ColumnDefinitionPayloads(*arrow::schema(fields), "", "")) {
        answer.push_back(std::move(definition));
      }
      if ((capabilities_ & kClientDeprecateEof) == 0) {
        answer.push_back(EofPayload(kStatusAutocommit));
      }
    }
    co_await Send(answer);
    co_return;
  }
  const auto id = in.U32();
  auto found = id ? prepared_.find(*id) : prepared_.end();
  if (command == kComStmtClose) {  // no answer, whatever happens
    if (found != prepared_.end()) prepared_.erase(found);
    co_return;
  }
  if (command == kComStmtSendLongData) {  // no answer either; errors show at EXECUTE
    const auto parameter = in.U16();
    if (found != prepared_.end() && parameter && *parameter < found->second.placeholders.size()) {
      PreparedStatement& statement = found->second;
      size_t held = 0;
      for (const auto& [index, data] : statement.long_data) held += data.size();
      const std::string_view data = in.Rest();
      if (held + data.size() > state_.options.max_allowed_packet) {
        statement.long_data_too_large = true;
      } else {
        statement.long_data[*parameter].append(data);
      }
    }
    co_return;
  }
  if (found == prepared_.end()) {
    const arrow::Status unknown =
        sql::SqlError(sql::SqlCode::kUnknownStatementHandler, ErrorKind::kNotFound,
                      "Unknown prepared statement handler (", id.value_or(0), ") given to ",
                      command == kComStmtReset ? "mysqld_stmt_reset" : "mysqld_stmt_execute");
    co_await SendError(unknown);
    co_return;
  }
  if (command == kComStmtReset) {
    found->second.long_data.clear();
    const std::string ok = OkPayload(OkInfo{});
    co_await SendOne(ok);
    co_return;
  }
  auto bound = BindParameters(found->second, in);
  if (!bound.ok()) {
    co_await SendError(bound.status());
    co_return;
  }
  const std::string text = std::move(*bound);
  const auto started = Clock::now();
  command_started_ = started;
  statement_kind_ = StatementKind(text);
  kill_query_ = false;
  read_control_ = std::make_shared<util::OperationControl>();
  busy_ = true;
  binary_results_ = true;
  std::vector<std::string> answer;
  co_await AnswerQuery(text, answer);
  binary_results_ = false;
  co_await Send(answer);
  busy_ = false;
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count();
  Log(id_, user_, "statement",
      Concat("kind=", StatementKind(text), " prepared=1 duration_ms=", micros / 1000.0));
}

arrow::Status Connection::CheckPreparable(const std::string& text) const {
  if (prepared_.size() >= kMaxPreparedStatements) {
    return sql::SqlError(sql::SqlCode::kTooManyPreparedStatements, ErrorKind::kResourceExhausted,
                         "Can't create more than ", kMaxPreparedStatements,
                         " prepared statements on one connection; close some (COM_STMT_CLOSE)");
  }
  const std::vector<std::string> pieces = SplitStatements(text);
  if (pieces.size() != 1) {
    return sql::SqlError(sql::SqlCode::kParseError, ErrorKind::kInvalidArgument,
                         pieces.empty() ? std::string("Query was empty")
                                        : "a prepared statement holds one statement, not " +
                                              std::to_string(pieces.size()));
  }
  // Syntax errors show at PREPARE, as in MySQL: the text parsed with 0 for each `?` (texts
  // over 64 KiB are parsed at EXECUTE only, on the statement pool, not on the network thread).
  if (text.size() > 64 * 1024) return arrow::Status::OK();
  std::string probe = text;
  for (size_t at : UnquotedPositions(text, '?')) probe.replace(at, 1, "0");
  ClientContext context;
  if (AnswerClientStatement(probe, context)) return arrow::Status::OK();
  return sql::ParseScript(probe).status();
}

ProcessRow Connection::Describe() const {
  ProcessRow process;
  process.id = id_;
  process.user = user_.empty() ? "unauthenticated user" : user_;
  process.host = peer_;
  process.database = session_.current_database();
  process.command = busy_ ? "Query" : "Sleep";
  process.seconds =
      std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - command_started_).count();
  if (busy_) {
    const std::string phase = state_.mutations.PhaseOf(id_);
    process.state = phase.empty() ? "executing" : "mutation: " + phase;
    process.info = statement_kind_;
    process.progress = state_.mutations.ProgressOf(id_);
  }
  return process;
}

std::vector<ProcessRow> Connection::VisibleProcesses() const {
  const bool administrator = state_.users->IsAdministrator(user_);
  std::vector<ProcessRow> rows;
  for (const auto& connection : state_.connections) {
    ProcessRow process = connection->Describe();
    if (administrator || process.user == user_) rows.push_back(std::move(process));
  }
  return rows;
}

void Connection::Kill(bool connection) {
  if (busy_) {
    kill_query_ = true;
    if (read_control_ != nullptr) read_control_->RequestCancel();
    state_.mutations.Cancel(id_);
  }
  if (connection) RequestClose();
}

std::optional<arrow::Result<sql::StatementResult>> Connection::AnswerProcessStatement(
    const std::string& text) {
  std::string lower = sql::AsciiLower(text);
  lower.erase(0, lower.find_first_not_of(" \t\r\n"));
  while (!lower.empty() && std::isspace(static_cast<unsigned char>(lower.back()))) lower.pop_back();
  using Answer = arrow::Result<sql::StatementResult>;
  const bool administrator = state_.users->IsAdministrator(user_);
  if (lower == "show processlist" || lower == "show full processlist") {
    sql::StatementResult result;
    result.rows = ShowProcessListTable(VisibleProcesses());
    return Answer(std::move(result));
  }
  if (lower.rfind("kill", 0) != 0 ||
      (lower.size() > 4 && !std::isspace(static_cast<unsigned char>(lower[4])))) {
    return std::nullopt;
  }
  std::string rest = lower.substr(4);
  rest.erase(0, rest.find_first_not_of(" \t\r\n"));
  bool connection_too = true;
  for (const char* word : {"query", "connection"}) {
    const std::string prefix(word);
    if (rest.rfind(prefix, 0) == 0 && rest.size() > prefix.size() &&
        std::isspace(static_cast<unsigned char>(rest[prefix.size()]))) {
      connection_too = prefix == "connection";
      rest = rest.substr(prefix.size());
      rest.erase(0, rest.find_first_not_of(" \t\r\n"));
    }
  }
  uint32_t target = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), target);
  if (error != std::errc() || end != rest.data() + rest.size()) {
    return Answer(sql::SqlError(sql::SqlCode::kParseError, ErrorKind::kInvalidArgument,
                                "syntax error: expected KILL [QUERY | CONNECTION] id"));
  }
  for (const auto& connection : state_.connections) {
    if (connection->id_ != target) continue;
    if (!administrator && connection->user() != user_) {
      return Answer(sql::SqlError(sql::SqlCode::kNotOwner, ErrorKind::kInvalidArgument,
                                  "You are not owner of thread ", target));
    }
    connection->Kill(connection_too);
    return Answer(sql::StatementResult{});
  }
  return Answer(sql::SqlError(sql::SqlCode::kUnknownThread, ErrorKind::kNotFound,
                              "Unknown thread id: ", target));
}

ClientContext Connection::MakeClientContext() {
  ClientContext context;
  context.database = session_.current_database();
  context.user = user_ + "@" + peer_;
  context.connection_id = id_;
  context.max_allowed_packet = state_.options.max_allowed_packet;
  context.idle_timeout_seconds = state_.options.idle_timeout_seconds;
  const MutationCounters counters = state_.mutations.counters();
  context.status = {
      {"Connections", std::to_string(state_.next_connection_id - 1)},
      {"Questions", std::to_string(state_.questions.load())},
      {"Tessera_mutation_entries", std::to_string(counters.entries)},
      {"Tessera_mutation_workers", std::to_string(counters.running)},
      {"Tessera_mutations_queued", std::to_string(counters.queued)},
      {"Tessera_mutation_isolation", state_.mutations.DescribeIsolation()},
      {"Threads_connected", std::to_string(state_.connections.size())},
  };
  for (int i = 0; i < 5; ++i) {
    context.status.emplace_back(
        "Tessera_mutations_" + std::string(OutcomeClassName(static_cast<OutcomeClass>(i))),
        std::to_string(counters.outcomes[i]));
  }
  std::sort(context.status.begin(), context.status.end());
  if (state_.options.test_fault_hooks) context.test_fault = &test_fault_;
  return context;
}

// One statement text of a COM_QUERY, run in steps: on the statement pool up to the next
// statement the network thread must see (a mutation, a DROP TABLE / DATABASE), then that one
// on the network thread, and so on.
struct Connection::PieceRun {
  std::string text;
  bool more = false;  // more pieces follow this one
  ClientContext context;
  std::vector<std::string>* out = nullptr;
  // KILL QUERY's cancellation of the command's reads (read_control_).
  std::shared_ptr<util::OperationControl> control;
  bool parsed = false;
  std::vector<sql::Statement> statements;
  size_t next = 0;
  bool failed = false;  // an error was appended: the query ends
  bool done = false;
  // statements[next] waits for the network thread: a mutation with its name entry, or a DROP
  // of the directory `drop_prefix`.
  bool network_next = false;
  std::optional<std::string> entry;
  std::string drop_prefix;
  bool drop_checked = false;
  std::string held_drop_entry;  // the entry a running DROP holds
  // The preflight's answer (a no-op or an error) or, with `admission`, a mutation to run.
  std::optional<arrow::Result<sql::StatementResult>> preflight;
  std::optional<sql::MutationAdmission> admission;

  bool MoreAfterNext() const { return more || next + 1 < statements.size(); }
};

awaitable<void> Connection::AnswerQuery(const std::string& text, std::vector<std::string>& out) {
  const std::vector<std::string> pieces = SplitStatements(text);
  if (pieces.empty()) {
    out.push_back(ErrorOf(
        sql::SqlError(sql::SqlCode::kEmptyQuery, ErrorKind::kInvalidArgument, "Query was empty")));
    co_return;
  }
  if (pieces.size() > 1 && (capabilities_ & kClientMultiStatements) == 0) {
    out.push_back(ErrorOf(sql::SqlError(
        sql::SqlCode::kParseError, ErrorKind::kInvalidArgument, "the query holds ", pieces.size(),
        " statements, but this connection did not enable multi-statements "
        "(CLIENT_MULTI_STATEMENTS); send one statement at a time")));
    co_return;
  }
  // One result per statement, each but the last flagged "more results"; the first error ends
  // the query (the results before it were sent flagged, so the client reads on to the error).
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (auto answer = AnswerProcessStatement(pieces[i])) {
      if (!answer->ok()) {
        out.push_back(ErrorOf(answer->status()));
        co_return;
      }
      AppendResult(**answer, i + 1 < pieces.size(), &out);
      continue;
    }
    PieceRun run;
    run.text = pieces[i];
    run.more = i + 1 < pieces.size();
    run.context = MakeClientContext();
    run.out = &out;
    run.control = read_control_;
    process_list_snapshot_.reset();
    if (sql::AsciiLower(pieces[i]).find("information_schema") != std::string::npos) {
      auto snapshot = InformationSchemaProcessList(VisibleProcesses());
      if (!snapshot.ok()) {
        out.push_back(ErrorOf(snapshot.status()));
        co_return;
      }
      process_list_snapshot_ = std::move(*snapshot);
    }
    for (;;) {
      const size_t before = out.size();
      co_await asio::co_spawn(state_.statements, AdvancePiece(run), use_awaitable);
      if (!run.held_drop_entry.empty()) {
        state_.mutations.Leave(run.held_drop_entry);
        run.held_drop_entry.clear();
      }
      if (kill_query_) {
        // What the killed step answered is dropped: the client hears of the KILL.
        out.resize(before);
        Fail(run, sql::SqlError(sql::SqlCode::kQueryInterrupted, ErrorKind::kCancelled,
                                "Query execution was interrupted (KILL QUERY)"));
        break;
      }
      if (run.failed || run.done) break;
      co_await RunNetworkStatement(run);
      if (run.failed) break;
    }
    if (run.failed) co_return;
  }
}

awaitable<void> Connection::AdvancePiece(PieceRun& run) {
  std::vector<std::string>& out = *run.out;
  if (run.preflight) {
    // The preflight of statements[next], inside its name entry.
    co_return;
  }
  if (!run.parsed) {
    auto answer =
        AnswerAccountStatement(run.text, user_, session_.current_database(), *state_.users);
    if (!answer) answer = AnswerClientStatement(run.text, run.context);
    if (answer) {
      if (!answer->ok()) {
        out.push_back(ErrorOf(answer->status()));
        run.failed = true;
      } else {
        AppendResult(**answer, run.more, &out);
        run.done = true;
      }
      co_return;
    }
    auto statements = sql::ParseScript(run.text);
    if (!statements.ok()) {
      out.push_back(ErrorOf(statements.status()));
      run.failed = true;
      co_return;
    }
    run.statements = std::move(*statements);
    run.parsed = true;
  }
  while (run.next < run.statements.size()) {
    const sql::Statement& statement = run.statements[run.next];
    if (sql::IsWorkerMutation(statement)) {
      auto entry = sql::MutationEntryName(statement, state_.catalog, session_.current_database());
      if (!entry.ok()) {
        out.push_back(ErrorOf(entry.status()));
        run.failed = true;
        co_return;
      }
      run.entry = std::move(*entry);
      run.network_next = true;
      co_return;
    }
    if (!run.drop_checked) {
      run.drop_prefix = DropPrefix(statement);
      if (!run.drop_prefix.empty()) {
        run.network_next = true;
        co_return;
      }
    }
    run.drop_checked = false;
    arrow::Result<sql::StatementResult> result;
    {
      // A read stops at its next batch once KILL QUERY arrives (sql::RunQuery checks).
      util::ControlScope cancellable(run.control.get());
      result = session_.Execute(statement, run.text);
    }
    if (!result.ok()) {
      out.push_back(ErrorOf(result.status()));
      run.failed = true;
      co_return;
    }
    AppendResult(*result, run.MoreAfterNext(), &out);
    ++run.next;
  }
  run.done = true;
}

std::string Connection::DropPrefix(const sql::Statement& statement) const {
  if (const auto* drop = std::get_if<sql::DropTableStatement>(&statement.body)) {
    auto location = state_.catalog.ResolveTable(drop->table, session_.current_database());
    return location.ok() ? sql::AsciiLower(location->uri) + "#" : std::string();
  }
  if (const auto* drop = std::get_if<sql::DropDatabaseStatement>(&statement.body)) {
    auto database = state_.catalog.ResolveDatabase(drop->database);
    // Built as the catalog builds table paths, so that every table entry below matches.
    return database.ok()
               ? sql::AsciiLower(
                     (std::filesystem::path(state_.catalog.root()) / *database).string()) +
                     "/"
               : std::string();
  }
  return {};
}

awaitable<void> Connection::Preflight(PieceRun& run) {
  sql::MutationHooks hooks;
  hooks.preflight = true;
  run.preflight = session_.Execute(run.statements[run.next], run.text, &hooks);
  run.admission = hooks.admission;
  co_return;
}

void Connection::Fail(PieceRun& run, const arrow::Status& status) {
  run.out->push_back(ErrorOf(status));
  run.failed = true;
}

awaitable<void> Connection::RunNetworkStatement(PieceRun& run) {
  std::vector<std::string>& out = *run.out;
  run.network_next = false;
  if (!run.drop_prefix.empty()) {
    // The DROP holds the entry of what it removes while it runs (released by AnswerQuery).
    const arrow::Status entered = state_.mutations.Enter(run.drop_prefix);
    if (!entered.ok()) {
      Fail(run, sql::SqlError(sql::SqlCode::kBusy, ErrorKind::kBusy,
                              "Busy: a mutation is running on what the DROP removes; it holds it "
                              "until its worker is gone. Try again later"));
      co_return;
    }
    run.held_drop_entry = std::move(run.drop_prefix);
    run.drop_prefix.clear();
    run.drop_checked = true;
    co_return;
  }
  const arrow::Status available = state_.mutations.Available();
  if (!available.ok()) {
    Fail(run, available);
    co_return;
  }
  if (run.entry) {
    const arrow::Status entered = state_.mutations.Enter(*run.entry);
    if (!entered.ok()) {
      Fail(run, entered);
      co_return;
    }
  }
  // The final authoritative preflight, inside the entry.
  co_await asio::co_spawn(state_.statements, Preflight(run), use_awaitable);
  auto preflight = std::move(*run.preflight);
  run.preflight.reset();
  auto admission = std::move(run.admission);
  run.admission.reset();
  if (!preflight.ok() || !admission) {
    if (run.entry) state_.mutations.Leave(*run.entry);
    if (!preflight.ok()) {
      Fail(run, preflight.status());
    } else {
      AppendResult(*preflight, run.MoreAfterNext(), &out);
      ++run.next;
    }
    co_return;
  }
  const sql::Statement& statement = run.statements[run.next];
  MutationRequest request;
  request.entry = run.entry.value_or("");
  request.database = std::filesystem::path(admission->table_uri).parent_path().filename();
  request.current_database = session_.current_database();
  request.text = statement.text;
  if (const auto* create = std::get_if<sql::CreateIndexStatement>(&statement.body)) {
    request.index_name = create->index_name;
  } else if (const auto* drop = std::get_if<sql::DropIndexStatement>(&statement.body)) {
    request.index_name = drop->index_name;
  }
  request.admission = std::move(*admission);
  request.fault = test_fault_;
  request.deadline = Clock::now() + std::chrono::seconds(state_.options.mutation_budget_seconds);
  request.connection = id_;
  auto waiter = std::make_shared<Waiter>(socket_.get_executor());
  waiter->timer.expires_at(Clock::time_point::max());
  state_.mutations.Run(std::move(request), [waiter](MutationOutcome outcome) {
    waiter->outcome = std::move(outcome);
    waiter->done = true;
    waiter->timer.cancel();
  });
  if (!waiter->done) {
    asio::error_code error;
    auto token = asio::redirect_error(use_awaitable, error);
    co_await waiter->timer.async_wait(token);
  }
  Log(id_, user_, "mutation",
      Concat("kind=", StatementKind(statement.text),
             " outcome=", OutcomeClassName(waiter->outcome.outcome)));
  if (waiter->outcome.outcome != OutcomeClass::kSuccess) {
    Fail(run, waiter->outcome.error);
    co_return;
  }
  AppendResult(waiter->outcome.result, run.MoreAfterNext(), &out);
  ++run.next;
}

awaitable<std::vector<std::string>> Connection::AnswerFieldListOnPool(const std::string& payload) {
  co_return AnswerFieldList(payload);
}

std::vector<std::string> Connection::AnswerFieldList(const std::string& payload) {
  PayloadReader in(payload);
  auto table = in.NulTerminated();
  if (!table) table = in.Rest();
  sql::ObjectName name;
  name.parts = {std::string(*table)};
  auto location = state_.catalog.ResolveTable(name, session_.current_database());
  if (!location.ok()) return {ErrorOf(location.status())};
  if (!state_.users->Allowed(user_, kPrivilegeSelect, location->database, location->table)) {
    return {ErrorOf(
        AccessDenied(sql::Access::kSelect, user_, peer_, location->database, location->table))};
  }
  auto snapshot = query::Snapshot::Open(location->uri);
  if (!snapshot.ok()) return {ErrorOf(snapshot.status())};
  std::vector<std::string> out =
      ColumnDefinitionPayloads(*(*snapshot)->schema(), location->database, location->table);
  // COM_FIELD_LIST's definitions end with the column's default value: NULL (none).
  for (auto& definition : out) definition.push_back(static_cast<char>(0xFB));
  out.push_back((capabilities_ & kClientDeprecateEof) ? EndOfRowsOkPayload(kStatusAutocommit)
                                                      : EofPayload(kStatusAutocommit));
  return out;
}

}  // namespace tessera::server
