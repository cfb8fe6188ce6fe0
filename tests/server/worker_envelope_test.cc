// The envelope between the server and a mutation worker: frames round-trip whatever bytes a
// value holds, arrive in any chunking, and anything but a complete verified frame — a prefix,
// a flipped byte, a wrong magic, an oversized length — is reported, never half-read.
#include <gtest/gtest.h>

#include <string>

#include "tessera/server/worker_envelope.h"

namespace tessera::server::worker_envelope_test {
namespace {

EnvelopeMessage Sample() {
  EnvelopeMessage message;
  message.fields = {{"invocation", NewInvocationId()},
                    {"type", "result"},
                    {"message", "line one\nline two\r\n100% = done"},
                    {"version", "42"}};
  return message;
}

TEST(WorkerEnvelopeTest, RoundTripsInAnyChunking) {
  const EnvelopeMessage message = Sample();
  const std::string frames = EncodeEnvelope(message) + EncodeEnvelope(message);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, frames.size()}) {
    EnvelopeReader reader;
    for (size_t at = 0; at < frames.size(); at += chunk) {
      reader.Feed(std::string_view(frames).substr(at, chunk));
    }
    ASSERT_FALSE(reader.malformed());
    ASSERT_FALSE(reader.truncated());
    ASSERT_EQ(reader.messages().size(), 2u);
    EXPECT_EQ(reader.messages()[1].fields, message.fields);
    EXPECT_EQ(reader.messages()[0].GetNumber("version"), 42u);
    EXPECT_EQ(reader.messages()[0].GetNumber("type"), std::nullopt);
  }
}

TEST(WorkerEnvelopeTest, EveryPrefixIsTruncatedNeverAMessage) {
  const std::string frame = EncodeEnvelope(Sample());
  for (size_t length = 1; length < frame.size(); ++length) {
    EnvelopeReader reader;
    reader.Feed(frame.substr(0, length));
    EXPECT_TRUE(reader.messages().empty()) << length;
    EXPECT_TRUE(reader.truncated() || reader.malformed()) << length;
  }
}

TEST(WorkerEnvelopeTest, EveryFlippedByteIsMalformed) {
  const std::string frame = EncodeEnvelope(Sample());
  for (size_t at = 0; at < frame.size(); ++at) {
    std::string bad = frame;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    EnvelopeReader reader;
    reader.Feed(bad);
    // A flipped length byte may only make the frame look longer (then it is unfinished).
    EXPECT_TRUE(reader.messages().empty()) << at;
    EXPECT_TRUE(reader.malformed() || reader.truncated()) << at;
  }
}

TEST(WorkerEnvelopeTest, OversizedLengthAndGarbageAreMalformed) {
  EnvelopeReader oversized;
  oversized.Feed(std::string("TSW1\xff\xff\xff\x7f", 8));
  EXPECT_TRUE(oversized.malformed());
  EnvelopeReader garbage;
  garbage.Feed("this is not an envelope");
  EXPECT_TRUE(garbage.malformed());
  // After a malformed frame, a good one is ignored too: the stream cannot be trusted.
  garbage.Feed(EncodeEnvelope(Sample()));
  EXPECT_TRUE(garbage.messages().empty());
}

}  // namespace
}  // namespace tessera::server::worker_envelope_test
