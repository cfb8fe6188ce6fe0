// The server's protocol pieces without a network: bounds-checked payload reading (every
// prefix of a handshake response is refused, never read past), password proofs of both
// plugins computed as clients compute them, the configuration file's validation, and the
// client statements (docs/server.md). tests/server/run_server_test.py runs real clients.
#include <arrow/builder.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <fstream>
#include <string>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/server/auth.h"
#include "tessera/server/client_statements.h"
#include "tessera/server/config.h"
#include "tessera/server/prepared_statements.h"
#include "tessera/server/protocol.h"
#include "tessera/server/result_set.h"
#include "tessera/server/user_store.h"
#include "tessera/server/wire.h"
#include "tessera/sql/errors.h"

namespace tessera::server::server_protocol_test {
namespace {

std::string Hash(const EVP_MD* md, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), out, &length, md, nullptr);
  return std::string(reinterpret_cast<char*>(out), length);
}

std::string Xor(const std::string& a, const std::string& b) {
  std::string out = a;
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

// What a client sends for mysql_native_password: SHA1(p) XOR SHA1(nonce + SHA1(SHA1(p))).
std::string NativeProof(const std::string& password, const std::string& nonce) {
  const std::string once = Hash(EVP_sha1(), password);
  return Xor(once, Hash(EVP_sha1(), nonce + Hash(EVP_sha1(), once)));
}

// caching_sha2_password: SHA256(p) XOR SHA256(SHA256(SHA256(p)) + nonce).
std::string Sha2Proof(const std::string& password, const std::string& nonce) {
  const std::string once = Hash(EVP_sha256(), password);
  return Xor(once, Hash(EVP_sha256(), Hash(EVP_sha256(), once) + nonce));
}

TEST(ServerAuth, ProofsOfTheRightPasswordPassAndNothingElseDoes) {
  const PasswordDigests stored = DigestPassword("correct horse");
  const std::string nonce = MakeNonce();
  ASSERT_EQ(nonce.size(), kNonceBytes);
  EXPECT_EQ(nonce.find('\0'), std::string::npos);
  EXPECT_TRUE(VerifyNativePassword(stored, nonce, NativeProof("correct horse", nonce)));
  EXPECT_TRUE(VerifyCachingSha2Password(stored, nonce, Sha2Proof("correct horse", nonce)));
  EXPECT_FALSE(VerifyNativePassword(stored, nonce, NativeProof("correct horsE", nonce)));
  EXPECT_FALSE(VerifyCachingSha2Password(stored, nonce, Sha2Proof("wrong", nonce)));
  // A proof for another nonce (a replay), a truncated proof, none at all.
  EXPECT_FALSE(VerifyNativePassword(stored, MakeNonce(), NativeProof("correct horse", nonce)));
  EXPECT_FALSE(VerifyNativePassword(stored, nonce, NativeProof("correct horse", nonce).substr(1)));
  EXPECT_FALSE(VerifyNativePassword(stored, nonce, ""));
  EXPECT_FALSE(VerifyCachingSha2Password(stored, nonce, ""));
  // The digests are not the password, and an empty password takes an empty proof only.
  EXPECT_EQ(stored.native.size(), 20u);
  EXPECT_EQ(stored.sha2.size(), 32u);
  const PasswordDigests empty = DigestPassword("");
  EXPECT_TRUE(VerifyNativePassword(empty, nonce, ""));
  EXPECT_FALSE(VerifyNativePassword(empty, nonce, NativeProof("x", nonce)));
  EXPECT_EQ(FromHex(ToHex(stored.sha2)), stored.sha2);
  EXPECT_EQ(FromHex("zz"), "");
}

std::string HandshakeResponseBytes() {
  PayloadWriter out;
  out.U32(kClientProtocol41 | kClientSecureConnection | kClientPluginAuth | kClientConnectWithDb |
          kClientPluginAuthLenencData);
  out.U32(1 << 24).U8(kUtf8mb4Collation).Zeros(23);
  out.NulTerminated("root").LengthEncodedString(std::string(20, 'x'));
  out.NulTerminated("shop").NulTerminated(kNativePassword);
  return out.Take();
}

TEST(ServerProtocol, AHandshakeResponseParsesAndEveryTruncationOfItIsRefused) {
  const std::string bytes = HandshakeResponseBytes();
  auto parsed = ParseHandshakeResponse(bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->user, "root");
  EXPECT_EQ(parsed->auth_response, std::string(20, 'x'));
  EXPECT_EQ(parsed->database, "shop");
  EXPECT_EQ(parsed->plugin, kNativePassword);
  // Up to the database, every prefix is malformed (the database and plugin are optional).
  const size_t required = bytes.find("shop");
  for (size_t length = 0; length < required; ++length) {
    EXPECT_FALSE(ParseHandshakeResponse(bytes.substr(0, length)).has_value()) << length;
  }
  // A TLS request is no handshake response (it asks for TLS first), nor is a pre-4.1 client.
  PayloadWriter tls;
  tls.U32(kClientProtocol41 | kClientSsl).U32(0).U8(0).Zeros(23);
  EXPECT_FALSE(ParseHandshakeResponse(tls.payload()).has_value());
  EXPECT_TRUE(IsSslRequest(tls.payload()));
  EXPECT_FALSE(IsSslRequest(bytes));
  EXPECT_FALSE(IsSslRequest(tls.payload().substr(0, 31)));
  PayloadWriter old;
  old.U32(kClientSecureConnection).U32(0).U8(0).Zeros(23).NulTerminated("root").U8(0);
  EXPECT_FALSE(ParseHandshakeResponse(old.payload()).has_value());
}

TEST(ServerProtocol, LengthEncodingsRoundTripAndLiesAboutLengthsAreCaught) {
  for (uint64_t value :
       {0ull, 250ull, 251ull, 65535ull, 65536ull, 16777215ull, 16777216ull, ~0ull}) {
    PayloadWriter out;
    out.LengthEncoded(value);
    PayloadReader in(out.payload());
    EXPECT_EQ(in.LengthEncoded(), value);
    EXPECT_EQ(in.remaining(), 0u);
  }
  // A string that says it is longer than the packet.
  PayloadWriter lie;
  lie.U8(0xFC).U16(1000).Bytes("short");
  PayloadReader in(lie.payload());
  EXPECT_FALSE(in.LengthEncodedString().has_value());
  PayloadReader unterminated("abc");
  EXPECT_FALSE(unterminated.NulTerminated().has_value());
  // OK's info is length-encoded (what libmysqlclient and libmariadb read).
  OkInfo ok;
  ok.info = "version 3";
  const std::string payload = OkPayload(ok);
  EXPECT_EQ(payload.substr(payload.size() - 10), "\x09version 3");
}

TEST(ServerConfig, EveryKeyIsValidated) {
  testing::TempDirectory directory;
  auto write = [&](const std::string& text) {
    const std::string path = (directory.path() / "server.conf").string();
    std::ofstream(path) << text;
    return path;
  };
  ServerOptions options;
  ASSERT_OK(ApplyConfigFile(write("# comment\nlisten = 0.0.0.0:3306\nmax_connections = 10\n"
                                  "idle_timeout=5\n\nstatement_threads = 3  # inline\n"),
                            &options));
  EXPECT_EQ(options.host, "0.0.0.0");
  EXPECT_EQ(options.port, 3306);
  EXPECT_EQ(options.max_connections, 10u);
  EXPECT_EQ(options.idle_timeout_seconds, 5u);
  EXPECT_EQ(options.statement_threads, 3u);
  ASSERT_OK(ApplyListen("[::1]:9030", &options));
  EXPECT_EQ(options.host, "::1");
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"max_conections = 3\n", "unknown key 'max_conections'; the keys are"},
           {"max_connections = 0\n", "expected an integer in [1, 100000], got '0'"},
           {"query_memory_limit = 5\n", "expected 0 (no limit) or at least 1048576 bytes"},
           {"listen = localhost\n", "expected HOST:PORT"},
           {"listen = 127.0.0.1:70000\n", "port: expected an integer in [0, 65535]"},
           {"idle_timeout\n", ":1: expected key = value"}}) {
    const auto status = ApplyConfigFile(write(text), &options);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_NE(status.message().find(message), std::string::npos) << status.message();
  }
  EXPECT_FALSE(ApplyConfigFile((directory.path() / "none.conf").string(), &options).ok());
}

TEST(ServerClientStatements, TheStatementsDriversSendAreAnswered) {
  ClientContext context{"shop", "root@127.0.0.1", 7, 1 << 20, 60, {}, nullptr};
  auto answer = [&](const std::string& text) {
    auto result = AnswerClientStatement(text, context);
    EXPECT_TRUE(result.has_value()) << text;
    return result ? *result : arrow::Result<sql::StatementResult>(arrow::Status::Invalid("-"));
  };
  auto cell = [](const sql::StatementResult& result, int column) {
    return result.rows->column(column)->GetScalar(0).ValueOrDie()->ToString();
  };
  ASSERT_OK_AND_ASSIGN(auto version, answer("select @@version_comment limit 1"));
  EXPECT_EQ(version.rows->schema()->field(0)->name(), "@@version_comment");
  EXPECT_EQ(cell(version, 0), "tessera");
  ASSERT_OK_AND_ASSIGN(auto several,
                       answer("SELECT @@session.autocommit AS ac, DATABASE(), CONNECTION_ID()"));
  EXPECT_EQ(several.rows->schema()->field(0)->name(), "ac");
  EXPECT_EQ(cell(several, 0), "1");
  EXPECT_EQ(cell(several, 1), "shop");
  EXPECT_EQ(cell(several, 2), "7");
  ASSERT_OK_AND_ASSIGN(auto none, answer("SELECT @@version LIMIT 0"));
  EXPECT_EQ(none.rows->num_rows(), 0);
  ASSERT_OK_AND_ASSIGN(auto like, answer("SHOW VARIABLES LIKE 'SQL\\_MODE'"));
  ASSERT_EQ(like.rows->num_rows(), 1);
  EXPECT_EQ(cell(like, 0), "sql_mode");
  ASSERT_OK_AND_ASSIGN(auto where,
                       answer("SHOW SESSION VARIABLES WHERE Variable_name IN ('wait_timeout')"));
  ASSERT_EQ(where.rows->num_rows(), 1);
  EXPECT_EQ(cell(where, 1), "60");
  for (const char* accepted : {"SET NAMES utf8mb4", "set autocommit=0", "COMMIT", "rollback",
                               "START TRANSACTION", "BEGIN;"}) {
    ASSERT_OK_AND_ASSIGN(auto ok, answer(accepted));
    EXPECT_EQ(ok.rows, nullptr) << accepted;
  }
  auto unknown = AnswerClientStatement("SELECT @@no_such_thing", context);
  ASSERT_TRUE(unknown.has_value());
  ASSERT_FALSE(unknown->ok());
  EXPECT_EQ(sql::CodeOf(unknown->status()), sql::SqlCode::kUnknownSystemVariable);
  // Connector/J starts its first query with a comment.
  ASSERT_OK_AND_ASSIGN(
      auto commented,
      answer("/* mysql-connector-j-8.0 */SELECT  @@session.auto_increment_increment "
             "AS auto_increment_increment, @@license AS license"));
  EXPECT_EQ(commented.rows->schema()->field(1)->name(), "license");
  // Statements of the SQL layer are not client statements.
  EXPECT_FALSE(AnswerClientStatement("SELECT id FROM t", context).has_value());
  EXPECT_FALSE(AnswerClientStatement("SELECT @@version, id FROM t", context).has_value());
  EXPECT_FALSE(AnswerClientStatement("SHOW DATABASES", context).has_value());
}

TEST(ServerClientStatements, AQueryIsSplitAtSemicolonsOutsideQuotesAndComments) {
  EXPECT_EQ(SplitStatements("SET NAMES utf8mb4; SELECT 1"),
            (std::vector<std::string>{"SET NAMES utf8mb4", " SELECT 1"}));
  EXPECT_EQ(SplitStatements("SELECT 'a;b', \"c;\"\"d\", `e;``f` FROM t"),
            (std::vector<std::string>{"SELECT 'a;b', \"c;\"\"d\", `e;``f` FROM t"}));
  EXPECT_EQ(SplitStatements("SELECT 'it\\'s;' AS x;"),
            (std::vector<std::string>{"SELECT 'it\\'s;' AS x"}));
  EXPECT_EQ(SplitStatements("SELECT 1 -- a; comment\n; /* b; */ ;; SELECT 2"),
            (std::vector<std::string>{"SELECT 1 -- a; comment\n", " SELECT 2"}));
  EXPECT_TRUE(SplitStatements(" ; -- nothing\n /* at all */ ").empty());
}

}  // namespace
// SHOW STATUS answers from the counters the connection passes; SET tessera_test_fault exists
// only where the server's test hooks gave the context somewhere to write it.
TEST(ServerClientStatements, StatusAndTheTestFaultVariable) {
  ClientContext context;
  context.status = {{"Tessera_mutation_entries", "0"}, {"Threads_connected", "1"}};
  auto status = AnswerClientStatement("SHOW GLOBAL STATUS LIKE 'tessera%'", context);
  ASSERT_TRUE(status.has_value() && status->ok());
  ASSERT_EQ((**status).rows->num_rows(), 1);
  auto refused = AnswerClientStatement("SET tessera_test_fault = 'oom'", context);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(sql::CodeOf(refused->status()), sql::SqlCode::kUnknownSystemVariable);
  std::string fault;
  context.test_fault = &fault;
  auto set = AnswerClientStatement("SET @@session.tessera_test_fault = 'hang'", context);
  ASSERT_TRUE(set.has_value() && set->ok());
  EXPECT_EQ(fault, "hang");
}

// Prepared statements: placeholders outside quotes and comments, parameters bound as SQL
// literals from their binary encodings (types remembered across executions), malformed
// parameters refused; rows in the binary protocol with their NULL bitmap.
TEST(ServerPreparedStatements, ParametersBecomeLiteralsAndRowsBinary) {
  // `-?` with -5 must not become `--5`, a comment that would swallow the rest.
  PreparedStatement statement = Prepare("SELECT -?, '?', ? -- ?\n");
  ASSERT_EQ(statement.placeholders.size(), 2u);
  PayloadWriter execute;
  execute.U8(0).U32(1);     // flags, iteration count
  execute.U8(0);            // NULL bitmap: none
  execute.U8(1);            // types bound
  execute.U16(8).U16(253);  // LONGLONG, VAR_STRING
  execute.U64(static_cast<uint64_t>(-5)).LengthEncodedString(std::string("a'b\\\0", 5));
  PayloadReader in(execute.payload());
  auto bound = BindParameters(statement, in);
  ASSERT_OK(bound.status());
  EXPECT_EQ(*bound, "SELECT -(-5), '?', 'a''b\\\\\\0' -- ?\n");
  PayloadWriter again;  // types not sent again; the second parameter NULL
  again.U8(0).U32(1).U8(0x02).U8(0).U64(7);
  PayloadReader again_in(again.payload());
  auto rebound = BindParameters(statement, again_in);
  ASSERT_OK(rebound.status());
  EXPECT_EQ(*rebound, "SELECT -7, '?', NULL -- ?\n");
  PayloadWriter truncated;
  truncated.U8(0).U32(1).U8(0).U8(1).U16(8).U16(253).U32(1);
  PayloadReader truncated_in(truncated.payload());
  EXPECT_EQ(sql::CodeOf(BindParameters(statement, truncated_in).status()),
            sql::SqlCode::kWrongArguments);

  auto schema = arrow::schema({arrow::field("i", arrow::int64()), arrow::field("s", arrow::utf8()),
                               arrow::field("d", arrow::float64())});
  arrow::Int64Builder ints;
  ASSERT_TRUE(ints.Append(1).ok() && ints.AppendNull().ok());
  arrow::StringBuilder strings;
  ASSERT_TRUE(strings.Append("x").ok() && strings.Append("y").ok());
  arrow::DoubleBuilder doubles;
  ASSERT_TRUE(doubles.Append(1.5).ok() && doubles.Append(2.5).ok());
  auto batch = arrow::RecordBatch::Make(
      schema, 2,
      {ints.Finish().ValueOrDie(), strings.Finish().ValueOrDie(), doubles.Finish().ValueOrDie()});
  std::vector<std::string> rows;
  AppendBinaryRows(*batch, &rows);
  ASSERT_EQ(rows.size(), 2u);
  const double one_and_a_half = 1.5;
  std::string expected("\0\0", 2);
  expected += std::string("\x01\0\0\0\0\0\0\0", 8) + "\x01x";
  expected += std::string(reinterpret_cast<const char*>(&one_and_a_half), 8);
  EXPECT_EQ(rows[0], expected);
  EXPECT_EQ(rows[1].substr(0, 2), std::string("\0\x04", 2));  // the NULL of column 0: bit 2
}

// Grants: scopes from *.* down to one table, a database-level question answered only by
// database-wide scopes, persisted across a reopen, gone with their user; root holds all.
TEST(ServerUserStore, GrantsPersistAndScope) {
  testing::TempDirectory directory;
  ::setenv(kRootPasswordVariable, "root-pw", 1);
  auto store = UserStore::Open(directory.path().string()).ValueOrDie();
  ::unsetenv(kRootPasswordVariable);
  EXPECT_TRUE(store->Allowed("root", kPrivilegeAlter, "any", ""));
  ASSERT_OK(store->CreateUser("alice", "pw", AccountPlugin::kAny, false));
  EXPECT_EQ(KindOf(store->CreateUser("alice", "pw", AccountPlugin::kAny, false)),
            ErrorKind::kAlreadyExists);
  EXPECT_FALSE(store->Allowed("alice", kPrivilegeSelect, "shop", "items"));
  ASSERT_OK(store->Grant("alice", "Shop.Items", kPrivilegeSelect | kPrivilegeShow));
  EXPECT_TRUE(store->Allowed("alice", kPrivilegeSelect, "SHOP", "items"));
  EXPECT_FALSE(store->Allowed("alice", kPrivilegeAlter, "shop", "items"));
  EXPECT_FALSE(store->Allowed("alice", kPrivilegeSelect, "shop", "other"));
  EXPECT_FALSE(store->Allowed("alice", kPrivilegeSelect, "shop", ""));  // the database itself
  ASSERT_OK(store->Grant("alice", "shop.*", kPrivilegeAlter));
  EXPECT_TRUE(store->Allowed("alice", kPrivilegeAlter, "shop", ""));
  EXPECT_FALSE(store->IsAdministrator("alice"));
  store = UserStore::Open(directory.path().string()).ValueOrDie();
  EXPECT_TRUE(store->Allowed("alice", kPrivilegeShow, "shop", "items"));
  EXPECT_EQ(store->GrantsOf("alice").size(), 2u);
  ASSERT_OK(store->Revoke("alice", "shop.items", kPrivilegeSelect | kPrivilegeShow));
  EXPECT_EQ(KindOf(store->Revoke("alice", "shop.items", kPrivilegeSelect)), ErrorKind::kNotFound);
  EXPECT_FALSE(store->Allowed("alice", kPrivilegeSelect, "shop", "items"));
  EXPECT_FALSE(store->DropUser("root", false).ok());
  ASSERT_OK(store->DropUser("alice", false));
  ASSERT_OK(store->CreateUser("alice", "pw", AccountPlugin::kAny, false));
  EXPECT_TRUE(store->GrantsOf("alice").empty());  // a new alice holds nothing of the old
}

}  // namespace tessera::server::server_protocol_test
