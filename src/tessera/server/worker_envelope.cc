#include "tessera/server/worker_envelope.h"

#include <charconv>

#include "tessera/server/auth.h"

namespace tessera::server {

namespace {

constexpr std::string_view kMagic = "TSW1";
constexpr size_t kHeader = 8;
constexpr size_t kDigest = 8;

std::string Escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\n') {
      out += "%0A";
    } else if (c == '\r') {
      out += "%0D";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> Unescape(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      out.push_back(value[i]);
      continue;
    }
    const std::string_view code = value.substr(i + 1, 2);
    if (code == "25") {
      out.push_back('%');
    } else if (code == "0A") {
      out.push_back('\n');
    } else if (code == "0D") {
      out.push_back('\r');
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return out;
}

std::optional<EnvelopeMessage> ParsePayload(std::string_view payload) {
  EnvelopeMessage message;
  while (!payload.empty()) {
    const size_t end = payload.find('\n');
    if (end == std::string_view::npos) return std::nullopt;  // every line ends with '\n'
    const std::string_view line = payload.substr(0, end);
    payload.remove_prefix(end + 1);
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    auto value = Unescape(line.substr(equals + 1));
    if (!value) return std::nullopt;
    if (!message.fields.emplace(std::string(line.substr(0, equals)), std::move(*value)).second) {
      return std::nullopt;
    }
  }
  return message;
}

}  // namespace

std::string EnvelopeMessage::Get(const std::string& key) const {
  auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

std::optional<uint64_t> EnvelopeMessage::GetNumber(const std::string& key) const {
  auto it = fields.find(key);
  if (it == fields.end()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return value;
}

std::string EncodeEnvelope(const EnvelopeMessage& message) {
  std::string payload;
  for (const auto& [key, value] : message.fields) payload += key + "=" + Escape(value) + "\n";
  std::string frame(kMagic);
  const auto length = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  frame += payload;
  frame += Sha256(payload).substr(0, kDigest);
  return frame;
}

void EnvelopeReader::Feed(std::string_view bytes) {
  if (malformed_) return;
  pending_.append(bytes.data(), bytes.size());
  while (pending_.size() >= kHeader) {
    if (std::string_view(pending_).substr(0, 4) != kMagic) {
      malformed_ = true;
      return;
    }
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<unsigned char>(pending_[4 + i])) << (8 * i);
    }
    if (length > kMaxEnvelopePayload) {
      malformed_ = true;
      return;
    }
    if (pending_.size() < kHeader + length + kDigest) return;
    const std::string_view payload = std::string_view(pending_).substr(kHeader, length);
    const std::string_view digest = std::string_view(pending_).substr(kHeader + length, kDigest);
    auto message =
        Sha256(payload).substr(0, kDigest) == digest ? ParsePayload(payload) : std::nullopt;
    if (!message) {
      malformed_ = true;
      return;
    }
    messages_.push_back(std::move(*message));
    pending_.erase(0, kHeader + length + kDigest);
  }
}

std::string NewInvocationId() { return ToHex(MakeNonce().substr(0, 16)); }

}  // namespace tessera::server
