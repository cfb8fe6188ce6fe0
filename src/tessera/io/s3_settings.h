// Where a dataset on S3-compatible object storage is (S3Location, from its URI) and how to
// reach the store (S3Settings, from the environment), docs/objstore.md.
//
// A dataset URI is `s3://bucket/prefix`; it names nothing else. Endpoint, region, TLS and retry
// settings come from environment variables, credentials from the AWS SDK's default chain
// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, then the profile files
// ~/.aws/credentials and ~/.aws/config selected by AWS_PROFILE): never from the URI, so that no
// secret reaches argv, logs, or the messages that quote a URI. A URI with user information or a
// query string is refused.
#pragma once

#include <arrow/result.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace tessera::io {

struct S3Location {
  std::string bucket;
  std::string prefix;  // without leading or trailing '/'; may be empty (the bucket's root)

  // "s3://bucket/prefix", as messages name the dataset.
  std::string Uri() const;
  // The path of the dataset root inside Arrow's S3 filesystem: "bucket/prefix".
  std::string FilesystemPath() const;
};

// Whether `text` is an S3 URI (`s3://...`) rather than a local path: how a dataset root and an
// external file's location tell object storage from a local filesystem.
inline bool IsS3Uri(std::string_view text) { return text.substr(0, 5) == "s3://"; }

// InvalidArgument naming the URI (user information masked) when it is not `s3://bucket[/prefix]`
// with a valid bucket name.
arrow::Result<S3Location> ParseS3Uri(std::string_view uri);

// One object, `s3://bucket/key`, as external files name them (docs/objstore.md): the bucket
// follows S3's naming rules; the key is any non-empty text (S3 keys may hold '?', '#', '@',
// spaces...; requests encode it). InvalidArgument naming the URI for an invalid bucket, no key,
// or user information (an '@' before the key), which is never quoted.
struct S3Object {
  std::string bucket;
  std::string key;

  std::string Uri() const { return "s3://" + bucket + "/" + key; }
};
arrow::Result<S3Object> ParseS3ObjectUri(std::string_view uri);

struct S3Settings {
  // AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL ("http://127.0.0.1:9000"): an S3-compatible
  // store other than AWS. Empty: AWS itself, over https.
  std::string endpoint_scheme = "https";
  std::string endpoint_authority;  // "host[:port]"
  // AWS_REGION, else AWS_DEFAULT_REGION; empty: us-east-1 for another endpoint, the bucket's
  // own region (asked of AWS) otherwise.
  std::string region;
  // AWS_CA_BUNDLE: a PEM file of the certificates that verify the endpoint.
  std::string ca_file;
  // TESSERA_S3_SINGLE_WRITER=1: commit on a store that ignores conditional puts, trusting that
  // one process at a time writes the dataset (docs/objstore.md).
  bool single_writer = false;
  // TESSERA_S3_REQUEST_TIMEOUT_SECONDS (default 10): one request's limit.
  std::chrono::milliseconds request_timeout{10000};
  // TESSERA_S3_RETRY_DEADLINE_SECONDS (default 30): how long throttled, failed or timed-out
  // requests are retried, with exponential backoff, before the operation fails Unavailable.
  std::chrono::milliseconds retry_deadline{30000};

  // InvalidArgument naming the variable when one is malformed.
  static arrow::Result<S3Settings> FromEnvironment();

  // "http://127.0.0.1:9000" or "AWS" for messages.
  std::string StoreName() const;
};

}  // namespace tessera::io
