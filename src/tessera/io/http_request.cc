#include "tessera/io/http_request.h"

#include <curl/curl.h>
#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <vector>

#include "tessera/status.h"
#include "tessera/util/shared_library.h"

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
  ARROW_ASSIGN_OR_RAISE(auto library,
                        util::SharedLibrary::Open({"libcurl.so.4"}, ErrorKind::kUnsupported,
                                                  "libcurl, which commits on object storage need,",
                                                  "install libcurl4 (scripts/bootstrap.sh does)"));
  Curl curl;
  library.Bind(&curl.global_init, "curl_global_init");
  library.Bind(&curl.easy_init, "curl_easy_init");
  library.Bind(&curl.easy_setopt, "curl_easy_setopt");
  library.Bind(&curl.easy_perform, "curl_easy_perform");
  library.Bind(&curl.easy_getinfo, "curl_easy_getinfo");
  library.Bind(&curl.easy_cleanup, "curl_easy_cleanup");
  library.Bind(&curl.easy_reset, "curl_easy_reset");
  library.Bind(&curl.easy_strerror, "curl_easy_strerror");
  library.Bind(&curl.slist_append, "curl_slist_append");
  library.Bind(&curl.slist_free_all, "curl_slist_free_all");
  ARROW_RETURN_NOT_OK(library.Complete());
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return Error(ErrorKind::kInternal, "libcurl failed to initialize");
  }
  return curl;
}

arrow::Result<const Curl*> LoadCurl() {
  // Never destroyed: handles are used and cleaned up at exit.
  static const auto* loaded = new arrow::Result<Curl>(OpenCurl());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
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

// Handles kept between requests, with their open connections, for the next request of any
// thread. Never destroyed: requests may run while the process exits, after static destructors.
// A child made by fork() shares its parent's sockets and must never send on them, so the child
// forgets the handles it inherited (left allocated: freeing one would close the parent's TLS
// session) and its mutex, which another parent thread may have held at the fork.
class HandlePool {
 public:
  static HandlePool& Instance() {
    static HandlePool* pool = [] {
      auto* created = new HandlePool();
      pthread_atfork(nullptr, nullptr, [] { Instance().ForgetAfterFork(); });
      return created;
    }();
    return *pool;
  }

  // A handle with no options set; null when libcurl cannot make one.
  CURL* Take(const Curl& curl) {
    {
      std::lock_guard<std::mutex> lock(*mutex_);
      if (!idle_.empty()) {
        CURL* handle = idle_.back();
        idle_.pop_back();
        curl.easy_reset(handle);  // options only: its connections stay open for reuse
        return handle;
      }
    }
    return curl.easy_init();
  }

  void Give(CURL* handle) {
    std::lock_guard<std::mutex> lock(*mutex_);
    idle_.push_back(handle);
  }

 private:
  void ForgetAfterFork() {
    mutex_ = new std::mutex();  // the parent's may be held by a thread the child lacks
    for (CURL* handle : idle_) inherited_.push_back(handle);
    idle_.clear();
  }

  std::mutex* mutex_ = new std::mutex();
  std::vector<CURL*> idle_;
  std::vector<CURL*> inherited_;  // kept reachable, never used
};

}  // namespace

arrow::Result<HttpResponse> SendHttpRequest(const HttpRequest& request) {
  ARROW_ASSIGN_OR_RAISE(const Curl* curl, LoadCurl());
  CURL* h = HandlePool::Instance().Take(*curl);
  if (h == nullptr) return Error(ErrorKind::kInternal, "libcurl could not start a request");
  struct GiveBack {
    CURL* handle;
    ~GiveBack() { HandlePool::Instance().Give(handle); }
  } give_back{h};
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
