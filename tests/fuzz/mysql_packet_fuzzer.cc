// Fuzz target: the packets of MySQL clients that the server parses before any statement runs
// (server/protocol.h, server/wire.h, server/client_statements.h). Byte 0 picks the parser: a
// handshake response, a walk of length-encoded fields, or a client statement (the text of a
// COM_QUERY). A parsed handshake response never holds more than the packet; every read is
// bounds-checked.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "tessera/server/client_statements.h"
#include "tessera/server/protocol.h"
#include "tessera/server/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(tessera::fuzz::BytesOf(data + 1, size - 1));
  switch (data[0] % 3) {
    case 0: {
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
    default: {
      tessera::server::ClientContext context{"db", "root@127.0.0.1", 1, 1 << 20, 60, {}, nullptr};
      (void)tessera::server::AnswerClientStatement(bytes, context);
    }
  }
  return 0;
}
