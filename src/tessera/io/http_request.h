// One HTTP request, sent by libcurl: the conditional put, the whole-object GET, and the HEAD and
// ETag-pinned ranged GETs of external files (s3_store.h) are the requests tessera sends itself
// (everything else on object storage goes through Arrow's S3 filesystem).
//
// libcurl handles are kept in a process-wide pool between requests, so a read's connection (and
// TLS session) is reused by a later read from the same store instead of being opened for every
// request; a child process made by fork() never uses its parent's. A write
// (PUT) always opens a connection of its own and closes it: libcurl silently resends a request
// whose reused connection died unanswered, which must never happen to a conditional put.
//
// libcurl is opened on first use (dlopen), like OpenBLAS: a linked libcurl would load its own
// dependencies (nghttp2, libssh2, LDAP, Kerberos...) into every tessera process at start, for a
// request that only datasets on object storage send. The soname is the OpenSSL flavour's,
// libcurl.so.4 (Debian libcurl4, scripts/bootstrap.sh).
#pragma once

#include <arrow/result.h>

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::io {

struct HttpRequest {
  std::string method;  // "PUT", "GET", "HEAD"
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  // A PUT's whole exchange; a GET's connection and longest silence (its transfer may be long).
  std::chrono::milliseconds timeout{10000};
  std::string ca_file;  // empty: the system's certificates
};

struct HttpResponse {
  // False when no response came: the connection failed, broke or timed out (`transport_error`
  // says how). The request may or may not have reached the server.
  bool received = false;
  long status = 0;
  std::string body;
  // Response headers by lower-case name (the last of repeated ones), values trimmed.
  std::map<std::string, std::string> headers;
  std::string transport_error;
};

// Sends `request`; an error only when libcurl cannot be loaded or set up.
arrow::Result<HttpResponse> SendHttpRequest(const HttpRequest& request);

}  // namespace tessera::io
