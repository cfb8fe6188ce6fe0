// AWS Signature Version 4 for S3 requests that tessera sends itself.
//
// Arrow's S3 filesystem signs every request it sends, but it has no conditional put (a PUT with
// `If-None-Match: *`), which the commit protocol needs on object storage (docs/objstore.md), and
// the AWS SDK it bundles is not reachable from outside libarrow. So that one request is signed
// here, by the published algorithm: a canonical request (method, URI-encoded path, sorted query,
// lowercase sorted headers, payload hash) is hashed into a string to sign under a
// date/region/service scope, and signed with a key derived from the secret by HMAC-SHA256 over
// the scope's parts. tests/io/sigv4_test.cc checks it against the example AWS publishes.
//
// The secret never leaves this file's functions except as the signature it produces.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tessera::io {

struct AwsCredentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // empty unless temporary credentials
};

struct SignableRequest {
  std::string method;  // "PUT"
  std::string host;    // as sent in the Host header, with ":port" when not the default
  std::string path;    // the raw path, "/bucket/key"; encoded here
  std::vector<std::pair<std::string, std::string>> query;  // raw names and values
  // Headers to sign besides host, x-amz-date and x-amz-content-sha256 (added here); names in
  // any case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256_hex;  // lowercase hex SHA-256 of the body
};

// The headers to send with the request, `Authorization` included: the request's own headers,
// x-amz-date, x-amz-content-sha256 and, for temporary credentials, x-amz-security-token.
// `amz_date` is the request time as "YYYYMMDDTHHMMSSZ" (UTC).
std::vector<std::pair<std::string, std::string>> SignV4(const SignableRequest& request,
                                                        const AwsCredentials& credentials,
                                                        const std::string& region,
                                                        const std::string& service,
                                                        const std::string& amz_date);

// The current UTC time as x-amz-date wants it.
std::string AmzDateNow();

// S3's URI encoding of a path: every byte but A-Z a-z 0-9 - . _ ~ and '/' as %XX.
std::string UriEncodePath(const std::string& path);

}  // namespace tessera::io
