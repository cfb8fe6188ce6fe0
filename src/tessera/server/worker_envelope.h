// The envelope between the server and a mutation worker (docs/server.md, "Isolation"): the
// request the server writes to the worker's standard input, and the messages the worker writes
// to its descriptor 3 (the mutating call has started; progress; the result).
//
// A message is a frame: "TSW1", the payload's length (4 bytes, little endian), the payload,
// then the first 8 bytes of SHA-256(payload). A payload is `key=value` lines, values with
// '%', '\n' and '\r' written as %25, %0A, %0D. Every message names the invocation it belongs
// to; the server accepts only complete frames with a matching digest and invocation id, and
// treats anything else — a short frame at the end, a bad digest, another invocation, a frame
// over the size limit — as a protocol failure of the whole run (it never guesses).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::server {

// The largest payload either side accepts.
inline constexpr uint32_t kMaxEnvelopePayload = 1u << 20;

struct EnvelopeMessage {
  std::map<std::string, std::string> fields;

  std::string Get(const std::string& key) const;
  std::optional<uint64_t> GetNumber(const std::string& key) const;
};

// The frame of `message`.
std::string EncodeEnvelope(const EnvelopeMessage& message);

// Reads frames as bytes arrive.
class EnvelopeReader {
 public:
  // Appends bytes; complete frames become messages. After a malformed frame, everything is
  // ignored and malformed() is true.
  void Feed(std::string_view bytes);
  // At the end of the stream: true when bytes of an unfinished frame are left.
  bool truncated() const { return !malformed_ && !pending_.empty(); }
  bool malformed() const { return malformed_; }
  const std::vector<EnvelopeMessage>& messages() const { return messages_; }
  // The messages completed so far, leaving none.
  std::vector<EnvelopeMessage> TakeMessages() { return std::exchange(messages_, {}); }

 private:
  std::string pending_;
  bool malformed_ = false;
  std::vector<EnvelopeMessage> messages_;
};

// A fresh invocation id: 16 random bytes in hexadecimal.
std::string NewInvocationId();

}  // namespace tessera::server
