// The packets of the MySQL client/server protocol that the server sends and parses
// (docs/server.md, "Protocol"): the protocol-10 handshake and the client's
// HandshakeResponse41, OK / ERR / EOF, and the constants they use.
//
// Every builder returns a payload; the connection frames it (4-byte header: 3-byte length,
// sequence id) and splits payloads of 16 MiB - 1 bytes or more into several packets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::server {

// Capability flags (only those the server speaks of).
enum Capability : uint32_t {
  kClientLongPassword = 0x1,
  kClientFoundRows = 0x2,
  kClientLongFlag = 0x4,
  kClientConnectWithDb = 0x8,
  kClientNoSchema = 0x10,
  kClientProtocol41 = 0x200,
  kClientInteractive = 0x400,
  kClientSsl = 0x800,
  kClientTransactions = 0x2000,
  kClientSecureConnection = 0x8000,
  kClientMultiStatements = 0x10000,
  kClientMultiResults = 0x20000,
  kClientPsMultiResults = 0x40000,
  kClientPluginAuth = 0x80000,
  kClientConnectAttrs = 0x100000,
  kClientPluginAuthLenencData = 0x200000,
  kClientDeprecateEof = 0x1000000,
};

// What the server offers (and CLIENT_SSL when TLS is configured); a connection uses the
// intersection with what the client asks.
inline constexpr uint32_t kServerCapabilities =
    kClientLongPassword | kClientFoundRows | kClientLongFlag | kClientConnectWithDb |
    kClientNoSchema | kClientProtocol41 | kClientInteractive | kClientTransactions |
    kClientSecureConnection | kClientMultiStatements | kClientMultiResults | kClientPsMultiResults |
    kClientPluginAuth | kClientConnectAttrs | kClientPluginAuthLenencData | kClientDeprecateEof;

enum StatusFlag : uint16_t {
  kStatusAutocommit = 0x2,
  kStatusMoreResults = 0x8,
};

enum Command : uint8_t {
  kComQuit = 0x01,
  kComInitDb = 0x02,
  kComQuery = 0x03,
  kComFieldList = 0x04,
  kComStatistics = 0x09,
  kComPing = 0x0e,
  kComStmtPrepare = 0x16,
  kComStmtExecute = 0x17,
  kComStmtSendLongData = 0x18,
  kComStmtClose = 0x19,
  kComStmtReset = 0x1a,
  kComResetConnection = 0x1f,
};

inline constexpr uint8_t kUtf8mb4Collation = 255;  // utf8mb4_0900_ai_ci
inline constexpr uint8_t kBinaryCollation = 63;
inline constexpr const char* kNativePassword = "mysql_native_password";
inline constexpr const char* kCachingSha2Password = "caching_sha2_password";
// The version clients see: MySQL 8.0's protocol, tessera's engine.
inline constexpr const char* kServerVersion = "8.0.36-tessera";

std::string HandshakePayload(uint32_t connection_id, std::string_view nonce, uint32_t capabilities);

// The short packet (capabilities, max packet, collation, filler) with CLIENT_SSL that asks for
// TLS before the HandshakeResponse41, which then follows over TLS.
bool IsSslRequest(std::string_view payload);

struct HandshakeResponse {
  uint32_t capabilities = 0;
  uint32_t max_packet = 0;
  std::string user;
  std::string auth_response;
  std::string database;  // empty when none
  std::string plugin;    // empty when the client names none
};
// nullopt for a malformed or truncated packet.
std::optional<HandshakeResponse> ParseHandshakeResponse(std::string_view payload);

// 0xFE, the plugin's name and the nonce: asks the client to answer with another plugin.
std::string AuthSwitchPayload(std::string_view plugin, std::string_view nonce);

// caching_sha2_password's AuthMoreData (0x01 and `data`): fast_auth_success ("\x03"),
// perform_full_authentication ("\x04"), or the server's RSA public key.
std::string AuthMoreDataPayload(std::string_view data);
inline constexpr char kFastAuthSuccess = 0x03;
inline constexpr char kPerformFullAuthentication = 0x04;
inline constexpr char kRequestPublicKey = 0x02;  // what the client sends to ask for the key

struct OkInfo {
  uint64_t affected_rows = 0;
  uint16_t status = kStatusAutocommit;
  uint16_t warnings = 0;
  std::string info;
};
std::string OkPayload(const OkInfo& ok);
// The OK that ends a result set under CLIENT_DEPRECATE_EOF (header 0xFE).
std::string EndOfRowsOkPayload(uint16_t status);
std::string EofPayload(uint16_t status);
// `message` is cut to what one ERR packet may carry.
std::string ErrorPayload(int code, std::string_view sql_state, std::string_view message);

}  // namespace tessera::server
