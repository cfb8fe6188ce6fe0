#include "tessera/server/protocol.h"

#include "tessera/server/wire.h"

namespace tessera::server {

std::string HandshakePayload(uint32_t connection_id, std::string_view nonce,
                             uint32_t capabilities) {
  PayloadWriter out;
  out.U8(10).NulTerminated(kServerVersion).U32(connection_id);
  out.Bytes(nonce.substr(0, 8)).U8(0);
  out.U16(static_cast<uint16_t>(capabilities & 0xFFFF));
  out.U8(kUtf8mb4Collation).U16(kStatusAutocommit);
  out.U16(static_cast<uint16_t>(capabilities >> 16));
  out.U8(static_cast<uint8_t>(nonce.size() + 1)).Zeros(10);
  out.Bytes(nonce.substr(8)).U8(0);
  out.NulTerminated(kNativePassword);
  return out.Take();
}

bool IsSslRequest(std::string_view payload) {
  PayloadReader in(payload);
  auto capabilities = in.U32();
  return payload.size() == 32 && capabilities && (*capabilities & kClientSsl) != 0 &&
         (*capabilities & kClientProtocol41) != 0;
}

std::optional<HandshakeResponse> ParseHandshakeResponse(std::string_view payload) {
  PayloadReader in(payload);
  HandshakeResponse response;
  auto capabilities = in.U32();
  auto max_packet = in.U32();
  if (!capabilities || !max_packet || !in.Skip(1 + 23)) return std::nullopt;
  response.capabilities = *capabilities;
  response.max_packet = *max_packet;
  // Protocol 41 only (CLIENT_SSL is the connection's to check: it must be on TLS by now).
  if ((response.capabilities & kClientProtocol41) == 0) return std::nullopt;
  auto user = in.NulTerminated();
  if (!user) return std::nullopt;
  response.user = std::string(*user);
  std::optional<std::string_view> auth;
  if (response.capabilities & kClientPluginAuthLenencData) {
    auth = in.LengthEncodedString();
  } else if (response.capabilities & kClientSecureConnection) {
    auto length = in.U8();
    if (length) auth = in.Bytes(*length);
  } else {
    auth = in.NulTerminated();
  }
  if (!auth) return std::nullopt;
  response.auth_response = std::string(*auth);
  if ((response.capabilities & kClientConnectWithDb) && in.remaining() > 0) {
    auto database = in.NulTerminated();
    if (!database) return std::nullopt;
    response.database = std::string(*database);
  }
  if ((response.capabilities & kClientPluginAuth) && in.remaining() > 0) {
    auto plugin = in.NulTerminated();
    // Some clients end the plugin name with the packet rather than a NUL.
    response.plugin = plugin ? std::string(*plugin) : std::string(in.Rest());
  }
  // Connection attributes (CLIENT_CONNECT_ATTRS) follow; the server does not use them.
  return response;
}

std::string AuthMoreDataPayload(std::string_view data) {
  PayloadWriter out;
  out.U8(0x01).Bytes(data);
  return out.Take();
}

std::string AuthSwitchPayload(std::string_view plugin, std::string_view nonce) {
  PayloadWriter out;
  out.U8(0xFE).NulTerminated(plugin).Bytes(nonce).U8(0);
  return out.Take();
}

std::string OkPayload(const OkInfo& ok) {
  PayloadWriter out;
  out.U8(0x00).LengthEncoded(ok.affected_rows).LengthEncoded(0);
  out.U16(ok.status).U16(ok.warnings);
  // The protocol documents string<EOF>, but servers write it length-encoded and clients
  // (libmysqlclient, libmariadb) read it so.
  if (!ok.info.empty()) out.LengthEncodedString(ok.info);
  return out.Take();
}

std::string EndOfRowsOkPayload(uint16_t status) {
  PayloadWriter out;
  out.U8(0xFE).LengthEncoded(0).LengthEncoded(0).U16(status).U16(0);
  return out.Take();
}

std::string EofPayload(uint16_t status) {
  PayloadWriter out;
  out.U8(0xFE).U16(0).U16(status);
  return out.Take();
}

std::string ErrorPayload(int code, std::string_view sql_state, std::string_view message) {
  // MySQL clients print at most 512 bytes of a message.
  constexpr size_t kMaxMessage = 512;
  PayloadWriter out;
  out.U8(0xFF).U16(static_cast<uint16_t>(code)).U8('#');
  out.Bytes(sql_state.substr(0, 5));
  out.Bytes(message.substr(0, kMaxMessage));
  return out.Take();
}

}  // namespace tessera::server
