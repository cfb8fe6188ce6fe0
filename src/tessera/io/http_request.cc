#include "tessera/io/http_request.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "tessera/status.h"

namespace tessera::io {

namespace {

struct Curl {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_reset) easy_reset = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
};

arrow::Result<Curl> OpenCurl() {
  void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* message = dlerror();
    return Unsupported("libcurl, which commits on object storage need, cannot be loaded (",
                       message ? message : "no message",
                       "); install libcurl4 (scripts/bootstrap.sh does)");
  }
  Curl curl;
  bool complete = true;
  auto find = [&](auto* slot, const char* name) {
    void* symbol = dlsym(library, name);
    complete = complete && symbol != nullptr;
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(symbol);
  };
  find(&curl.global_init, "curl_global_init");
  find(&curl.easy_init, "curl_easy_init");
  find(&curl.easy_setopt, "curl_easy_setopt");
  find(&curl.easy_perform, "curl_easy_perform");
  find(&curl.easy_getinfo, "curl_easy_getinfo");
  find(&curl.easy_cleanup, "curl_easy_cleanup");
  find(&curl.easy_reset, "curl_easy_reset");
  find(&curl.easy_strerror, "curl_easy_strerror");
  find(&curl.slist_append, "curl_slist_append");
  find(&curl.slist_free_all, "curl_slist_free_all");
  if (!complete) {
    return Unsupported("the libcurl loaded lacks a function tessera needs");
  }
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return Error(ErrorKind::kInternal, "libcurl failed to initialize");
  }
  return curl;
}

arrow::Result<const Curl*> LoadCurl() {
  static const arrow::Result<Curl> loaded = OpenCurl();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

size_t AppendBody(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

// One header line ("Name: value\r\n"); the status line and the blank line have no colon.
size_t KeepHeader(char* data, size_t size, size_t count, void* target) {
  const std::string_view line(data, size * count);
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!value.empty() && blank(value.front())) value.remove_prefix(1);
  while (!value.empty() && blank(value.back())) value.remove_suffix(1);
  (*static_cast<std::map<std::string, std::string>*>(target))[name] = std::string(value);
  return size * count;
}

// This thread's handle: reset before each request, which keeps its connection cache, so a
// thread's requests to one store share connections.
struct ThreadHandle {
  const Curl* curl = nullptr;
  CURL* handle = nullptr;
  ~ThreadHandle() {
    if (handle != nullptr) curl->easy_cleanup(handle);
  }
};

CURL* HandleOfThisThread(const Curl* curl) {
  thread_local ThreadHandle kept;
  if (kept.handle == nullptr) {
    kept.curl = curl;
    kept.handle = curl->easy_init();
  } else {
    curl->easy_reset(kept.handle);
  }
  return kept.handle;
}

}  // namespace

arrow::Result<HttpResponse> SendHttpRequest(const HttpRequest& request) {
  ARROW_ASSIGN_OR_RAISE(const Curl* curl, LoadCurl());
  CURL* h = HandleOfThisThread(curl);
  if (h == nullptr) return Error(ErrorKind::kInternal, "libcurl could not start a request");
  // Content-Type and Expect are blanked: curl would add them to a request with a body, and a
  // 100-continue round trip only slows a small put.
  curl_slist* headers = curl->slist_append(nullptr, "Content-Type:");
  headers = curl->slist_append(headers, "Expect:");
  for (const auto& [name, value] : request.headers) {
    headers = curl->slist_append(headers, (name + ": " + value).c_str());
  }
  std::unique_ptr<curl_slist, decltype(curl->slist_free_all)> header_list(headers,
                                                                          curl->slist_free_all);
  HttpResponse response;
  curl->easy_setopt(h, CURLOPT_URL, request.url.c_str());
  const bool reads = request.method == "GET" || request.method == "HEAD";
  if (request.method == "GET") {
    curl->easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl->easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    curl->easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    // Never null: with no fields libcurl would read the body from standard input.
    curl->easy_setopt(h, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
    curl->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  curl->easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  const long timeout_ms = static_cast<long>(request.timeout.count());
  if (reads) {
    // A whole object may be large: the limit is on silence (under 1 byte/s for the timeout)
    // and on connecting, not on the transfer.
    curl->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, timeout_ms / 1000));
  } else {
    curl->easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    // A write gets a connection of its own: on a reused connection that the server closed
    // without answering, libcurl sends the request again by itself, and a conditional put
    // whose first copy was applied would then read as a conflict (412) instead of an outcome
    // the caller knows was lost (s3_store.h resolves those by reading the object back).
    curl->easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
    curl->easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
  }
  curl->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  // No proxy from http(s)_proxy: the conditional put goes where Arrow's requests go, directly.
  curl->easy_setopt(h, CURLOPT_PROXY, "");
  curl->easy_setopt(h, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl->easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  curl->easy_setopt(h, CURLOPT_HEADERFUNCTION, &KeepHeader);
  curl->easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  if (!request.ca_file.empty()) curl->easy_setopt(h, CURLOPT_CAINFO, request.ca_file.c_str());
  const CURLcode code = curl->easy_perform(h);
  if (code != CURLE_OK) {
    response.transport_error = curl->easy_strerror(code);
    return response;
  }
  response.received = true;
  curl->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace tessera::io
