// Fuzz target: the packets of MySQL clients that the server parses before any statement runs
// (server/protocol.h, server/wire.h, server/client_statements.h, server/auth.h,
// server/rsa_key.h). Byte 0 picks the parser: a handshake response (or SSL request), a walk of
// length-encoded fields, a client statement (the text of a COM_QUERY), or what a client sends
// in a full authentication (an RSA ciphertext, a masked password, a users-file salted record).
// A parsed handshake response never holds more than the packet; every read is bounds-checked.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "tessera/server/auth.h"
#include "tessera/server/client_statements.h"
#include "tessera/server/protocol.h"
#include "tessera/server/rsa_key.h"
#include "tessera/server/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(tessera::fuzz::BytesOf(data + 1, size - 1));
  switch (data[0] % 4) {
    case 0: {
      (void)tessera::server::IsSslRequest(bytes);
      auto response = tessera::server::ParseHandshakeResponse(bytes);
      if (response && response->user.size() + response->auth_response.size() +
                              response->database.size() + response->plugin.size() >
                          bytes.size()) {
        std::abort();
      }
      break;
    }
    case 1: {
      tessera::server::PayloadReader reader(bytes);
      while (reader.remaining() > 0) {
        const size_t before = reader.remaining();
        if (!reader.LengthEncodedString() && !reader.NulTerminated() && !reader.U8()) break;
        if (reader.remaining() >= before) std::abort();  // every read consumes
      }
      break;
    }
    case 3: {
      static const auto key = tessera::server::RsaKey::Generate().ValueOrDie();
      const std::string nonce(tessera::server::kNonceBytes, 'n');
      auto masked = key->Decrypt(bytes);
      if (masked && masked->size() > bytes.size()) std::abort();
      auto password = tessera::server::UnmaskPassword(bytes, nonce);
      if (password && password->size() + 1 != bytes.size()) std::abort();
      tessera::server::PasswordDigests account;
      account.plugin = tessera::server::AccountPlugin::kCachingSha2;
      account.salted = bytes.substr(0, bytes.find('\n'));
      // Records of more than 9,999 iterations are left out: each would take milliseconds.
      const size_t first = account.salted.find('$');
      const size_t second = account.salted.find('$', first == std::string::npos ? 0 : first + 1);
      if (first != std::string::npos && second != std::string::npos && second - first <= 5) {
        (void)tessera::server::VerifyClearPassword(account, "pw");
      }
      break;
    }
    default: {
      tessera::server::ClientContext context{"db", "root@127.0.0.1", 1, 1 << 20, 60, {}, nullptr};
      (void)tessera::server::AnswerClientStatement(bytes, context);
    }
  }
  return 0;
}
