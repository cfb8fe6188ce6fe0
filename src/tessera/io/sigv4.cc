#include "tessera/io/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "tessera/io/sha256.h"

namespace tessera::io {

namespace {

std::string HmacSha256(const std::string& key, const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string Sha256Hex(const std::string& data) {
  return HexDigest(Sha256(data.data(), data.size()));
}

bool IsUnreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string UriEncode(const std::string& text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string encoded;
  for (unsigned char c : text) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      encoded.push_back(static_cast<char>(c));
    } else {
      encoded += '%';
      encoded += kDigits[c >> 4];
      encoded += kDigits[c & 0xf];
    }
  }
  return encoded;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Header values are signed trimmed, with inner runs of spaces as one.
std::string CanonicalValue(const std::string& value) {
  std::string out;
  bool space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncodePath(const std::string& path) { return UriEncode(path, /*keep_slash=*/true); }

std::string AmzDateNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[17];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::vector<std::pair<std::string, std::string>> SignV4(const SignableRequest& request,
                                                        const AwsCredentials& credentials,
                                                        const std::string& region,
                                                        const std::string& service,
                                                        const std::string& amz_date) {
  std::vector<std::pair<std::string, std::string>> headers = request.headers;
  headers.emplace_back("x-amz-date", amz_date);
  headers.emplace_back("x-amz-content-sha256", request.payload_sha256_hex);
  if (!credentials.session_token.empty()) {
    headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  std::vector<std::pair<std::string, std::string>> canonical;
  canonical.emplace_back("host", request.host);
  for (const auto& [name, value] : headers) {
    canonical.emplace_back(Lowercase(name), CanonicalValue(value));
  }
  std::sort(canonical.begin(), canonical.end());

  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : request.query) {
    query.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(query.begin(), query.end());

  std::string canonical_request = request.method + "\n" + UriEncodePath(request.path) + "\n";
  for (size_t i = 0; i < query.size(); ++i) {
    canonical_request += (i ? "&" : "") + query[i].first + "=" + query[i].second;
  }
  canonical_request += "\n";
  std::string signed_headers;
  for (const auto& [name, value] : canonical) {
    canonical_request += name + ":" + value + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + name;
  }
  canonical_request += "\n" + signed_headers + "\n" + request.payload_sha256_hex;

  const std::string date = amz_date.substr(0, 8);
  const std::string scope = date + "/" + region + "/" + service + "/aws4_request";
  const std::string string_to_sign =
      "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(canonical_request);
  std::string key = HmacSha256("AWS4" + credentials.secret_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  const std::string signature = HexDigest(HmacSha256(key, string_to_sign));

  headers.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=" + credentials.access_key +
                                            "/" + scope + ", SignedHeaders=" + signed_headers +
                                            ", Signature=" + signature);
  return headers;
}

}  // namespace tessera::io
