#include "tessera/io/s3_store.h"

#include <arrow/buffer.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>

#include "tessera/io/arrow_s3_module.h"
#include "tessera/io/cached_object_file.h"
#include "tessera/io/fault_injection.h"
#include "tessera/io/http_request.h"
#include "tessera/io/object_cache.h"
#include "tessera/io/retry_backoff.h"
#include "tessera/io/s3_errors.h"
#include "tessera/io/sha256.h"
#include "tessera/io/sigv4.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

constexpr std::string_view kProbe = "_versions/.conditional-put-probe";

// The <Code> of an S3 error document, or "".
std::string ErrorCode(const std::string& body) {
  const size_t begin = body.find("<Code>");
  const size_t end = body.find("</Code>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  return body.substr(begin + 6, end - begin - 6);
}

// Last-Modified ("Sun, 06 Nov 1994 08:49:37 GMT", RFC 9110's date) in nanoseconds since the
// epoch; 0 when it cannot be read. Parsed by hand: strptime's month names follow the locale.
int64_t ModifiedNanos(const std::string& text) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char month[4] = {};
  std::tm time{};
  if (std::sscanf(text.c_str(), "%*3s, %2d %3s %4d %2d:%2d:%2d", &time.tm_mday, month,
                  &time.tm_year, &time.tm_hour, &time.tm_min, &time.tm_sec) != 6) {
    return 0;
  }
  time.tm_mon = -1;
  for (int m = 0; m < 12; ++m) {
    if (std::string_view(month) == kMonths[m]) time.tm_mon = m;
  }
  if (time.tm_mon < 0) return 0;
  time.tm_year -= 1900;
  return static_cast<int64_t>(timegm(&time)) * 1000000000;
}

// An object read through S3Store::ReadPinnedRange: the inner file of OpenPinned's
// CachedObjectFile, which only calls ReadAt (thread-safe); Read and Seek serve a lone reader.
class PinnedObjectFile : public arrow::io::RandomAccessFile {
 public:
  PinnedObjectFile(std::shared_ptr<S3Store> store, std::string relative, ObjectVersion version)
      : store_(std::move(store)), relative_(std::move(relative)), version_(std::move(version)) {}

  arrow::Status Close() override {
    closed_ = true;
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Seek(int64_t position) override {
    position_ = position;
    return arrow::Status::OK();
  }
  arrow::Result<int64_t> GetSize() override { return version_.size; }
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    if (position < 0 || nbytes < 0) return arrow::Status::Invalid("negative read");
    nbytes = std::max<int64_t>(0, std::min(nbytes, version_.size - position));
    return store_->ReadPinnedRange(relative_, version_.etag, position, nbytes);
  }
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(auto bytes, ReadAt(position, nbytes));
    std::memcpy(out, bytes->data(), static_cast<size_t>(bytes->size()));
    return bytes->size();
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto bytes, ReadAt(position_, nbytes));
    position_ += bytes->size();
    return bytes;
  }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t read, ReadAt(position_, nbytes, out));
    position_ += read;
    return read;
  }

 private:
  std::shared_ptr<S3Store> store_;
  std::string relative_;
  ObjectVersion version_;
  int64_t position_ = 0;
  bool closed_ = false;
};

std::string Described(const HttpResponse& response) {
  if (!response.received) return response.transport_error;
  const std::string code = ErrorCode(response.body);
  return "HTTP " + std::to_string(response.status) + (code.empty() ? "" : " " + code);
}

}  // namespace

arrow::Result<std::shared_ptr<S3Store>> S3Store::Open(std::string_view uri) {
  return OpenAs(uri, "dataset");
}

arrow::Result<std::shared_ptr<S3Store>> S3Store::ForBucket(std::string_view bucket_uri) {
  ARROW_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(bucket_uri));
  ARROW_ASSIGN_OR_RAISE(S3Settings settings, S3Settings::FromEnvironment());
  static std::mutex mutex;
  static auto* stores = new std::map<std::string, std::shared_ptr<S3Store>>();  // never destroyed
  const std::string key = settings.StoreName() + "/" + location.bucket;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = stores->find(key); found != stores->end()) return found->second;
  // A failure is not kept: the next use asks again.
  ARROW_ASSIGN_OR_RAISE(auto store, OpenAs("s3://" + location.bucket, "bucket"));
  stores->emplace(key, store);
  return store;
}

arrow::Result<std::shared_ptr<S3Store>> S3Store::OpenAs(std::string_view uri, std::string subject) {
  ARROW_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(uri));
  ARROW_ASSIGN_OR_RAISE(S3Settings settings, S3Settings::FromEnvironment());
  ARROW_ASSIGN_OR_RAISE(const ArrowS3Module* module, LoadArrowS3Module());
  std::string region = settings.region;
  if (region.empty() && !settings.endpoint_authority.empty()) region = "us-east-1";
  if (region.empty()) {
    auto resolved = module->resolve_region(location.bucket);
    if (!resolved.ok()) {
      const arrow::Status typed =
          TypedS3Failure(resolved.status(), "bucket '" + location.bucket + "' of " + location.Uri(),
                         settings.retry_deadline.count() / 1000.0);
      if (KindOf(typed) != ErrorKind::kIOError && KindOf(typed) != ErrorKind::kNotFound) {
        return typed;
      }
      return NotFound("cannot find the region of bucket '", location.bucket, "' of ",
                      location.Uri(), " (", resolved.status().message(),
                      "); check the bucket's name, or set AWS_REGION");
    }
    region = *resolved;
  }
  auto filesystem = module->make_filesystem(settings, region);
  if (!filesystem.ok()) {
    return WithContext(filesystem.status(), "connecting to " + settings.StoreName());
  }
  std::shared_ptr<S3Store> store(new S3Store(location, settings, *filesystem, region));
  store->subject_ = std::move(subject);
  auto bucket = store->filesystem_->GetFileInfo(location.bucket);
  if (!bucket.ok()) {
    const arrow::Status typed = store->Typed(bucket.status());
    // Credentials confined to a prefix may not look at the bucket: their reads and writes
    // under the prefix say whether they are allowed.
    if (KindOf(typed) == ErrorKind::kPermissionDenied) return store;
    return typed;
  }
  if (bucket->type() == arrow::fs::FileType::NotFound) {
    return NotFound("bucket '", location.bucket, "' of ", location.Uri(), " does not exist at ",
                    settings.StoreName(), "; create it first, or check AWS_ENDPOINT_URL");
  }
  return store;
}

S3Store::S3Store(S3Location location, S3Settings settings,
                 std::shared_ptr<arrow::fs::FileSystem> filesystem, std::string region)
    : location_(std::move(location)),
      settings_(std::move(settings)),
      filesystem_(std::move(filesystem)),
      region_(std::move(region)) {}

std::string S3Store::Where() const {
  return subject_ + " " + location_.Uri() + " at " + settings_.StoreName();
}

double S3Store::DeadlineSeconds() const { return settings_.retry_deadline.count() / 1000.0; }

arrow::Status S3Store::Typed(const arrow::Status& status) const {
  return TypedS3Failure(status, Where(), DeadlineSeconds());
}

arrow::Result<HttpResponse> S3Store::Send(const std::string& method, const std::string& relative,
                                          std::vector<std::pair<std::string, std::string>> headers,
                                          std::string_view body, bool* maybe_applied) {
  const std::string key = location_.prefix.empty() ? relative : location_.prefix + "/" + relative;
  // AWS itself is addressed by virtual host over https, another endpoint by path.
  const bool aws = settings_.endpoint_authority.empty();
  SignableRequest signable;
  signable.method = method;
  signable.host =
      aws ? location_.bucket + ".s3." + region_ + ".amazonaws.com" : settings_.endpoint_authority;
  signable.path = aws ? "/" + key : "/" + location_.bucket + "/" + key;
  signable.headers = std::move(headers);
  signable.payload_sha256_hex = HexDigest(Sha256(body.data(), body.size()));
  // The URL is the signed host and path, so that what is signed is what is sent.
  const std::string url = (aws ? std::string("https") : settings_.endpoint_scheme) + "://" +
                          signable.host + UriEncodePath(signable.path);
  const bool writes = method != "GET" && method != "HEAD";

  const RetryBackoff backoff(settings_.retry_deadline);
  const auto start = std::chrono::steady_clock::now();
  for (int retry = 0;; ++retry) {
    // Credentials are asked for at each attempt: temporary ones may have been renewed.
    ARROW_ASSIGN_OR_RAISE(const ArrowS3Module* module, LoadArrowS3Module());
    const AwsCredentials credentials = module->credentials(*filesystem_);
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.headers = SignV4(signable, credentials, region_, "s3", AmzDateNow());
    request.body = body;
    request.timeout = settings_.request_timeout;
    request.ca_file = settings_.ca_file;
    ARROW_ASSIGN_OR_RAISE(HttpResponse response, SendHttpRequest(request));
    // Retried: no answer, 500, 502 and 504, which the store may have applied anyway; 409
    // (ConditionalRequestConflict: a racing conditional put in flight), 429 and 503 (throttled),
    // which it did not. 501 (not implemented) is final.
    const bool maybe = !response.received || response.status == 500 || response.status == 502 ||
                       response.status == 504;
    const bool refused = response.status == 409 || response.status == 429 || response.status == 503;
    if (!maybe && !refused) return response;
    if (maybe && maybe_applied != nullptr) *maybe_applied = true;
    const auto delay = backoff.Delay(retry);
    if (retry >= backoff.MaxRetries() ||
        std::chrono::steady_clock::now() - start + delay > backoff.deadline()) {
      return Unavailable(writes ? "writing " : "reading ", location_.Uri(), "/", relative,
                         " failed after ", retry + 1, " attempts over ",
                         settings_.retry_deadline.count() / 1000.0,
                         " s (TESSERA_S3_RETRY_DEADLINE_SECONDS); last: ", Described(response),
                         writes ? "; nothing was committed, try again later" : "; try again later");
    }
    std::this_thread::sleep_for(delay);
  }
}

arrow::Status S3Store::Refused(const HttpResponse& response, std::string_view action,
                               const std::string& relative) const {
  const std::string what = location_.Uri() + "/" + relative;
  switch (response.status) {
    case 403:
      return PermissionDenied(
          settings_.StoreName(), " refused ", action, " ", what, " (", Described(response),
          "); check the credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) and the bucket's "
          "policy");
    case 404:
      return NotFound("file ", what, " does not exist (", Described(response), ")");
    default:
      return Error(ErrorKind::kIOError, action, " ", what, " failed: ", Described(response));
  }
}

arrow::Result<S3Store::PutOutcome> S3Store::ConditionalPut(const std::string& relative,
                                                           std::string_view contents,
                                                           bool* maybe_applied) {
  // Single-writer mode sends a plain put: its store may not implement the condition (501).
  std::vector<std::pair<std::string, std::string>> headers;
  if (!settings_.single_writer) headers.emplace_back("If-None-Match", "*");
  ARROW_ASSIGN_OR_RAISE(HttpResponse response,
                        Send("PUT", relative, std::move(headers), contents, maybe_applied));
  switch (response.status) {
    case 200:
    case 201:
      return PutOutcome::kCreated;
    case 412:
      return PutOutcome::kExists;
    case 501:
      return Unsupported(settings_.StoreName(), " does not implement conditional puts (",
                         Described(response), "), which commits to ", location_.Uri(),
                         " need; set TESSERA_S3_SINGLE_WRITER=1 only if a single process ever "
                         "writes this dataset (docs/objstore.md)");
    default:
      return Refused(response, "writing", relative);
  }
}

arrow::Result<std::shared_ptr<arrow::Buffer>> S3Store::ReadObject(std::string_view relative) {
  const std::string name(relative);
  ARROW_ASSIGN_OR_RAISE(HttpResponse response, Send("GET", name, {}, {}, nullptr));
  if (response.status != 200) return Refused(response, "reading", name);
  return arrow::Buffer::FromString(std::move(response.body));
}

std::string S3Store::CacheKey(std::string_view relative) const {
  return settings_.StoreName() + "/" + location_.FilesystemPath() + "/" + std::string(relative);
}

arrow::Result<std::shared_ptr<arrow::Buffer>> S3Store::ReadWhole(std::string_view relative) {
  ObjectCache& cache = ObjectCache::Instance();
  const std::string key = CacheKey(relative);
  if (auto cached = cache.Get(key, ObjectCache::kWholeObject)) return cached;
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadObject(relative));
  cache.SetSize(key, bytes->size());
  cache.Put(key, ObjectCache::kWholeObject, bytes);
  return bytes;
}

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> S3Store::OpenForRead(
    std::string_view relative, std::optional<int64_t> expected_size) {
  ObjectCache& cache = ObjectCache::Instance();
  const std::string key = CacheKey(relative);
  const std::string path = location_.FilesystemPath() + "/" + std::string(relative);
  const std::string shown = location_.Uri() + "/" + std::string(relative);
  std::optional<int64_t> size = expected_size ? expected_size : cache.SizeOf(key);
  std::shared_ptr<arrow::io::RandomAccessFile> inner;
  if (size) {
    // With the size known, Arrow opens the object without asking for it.
    arrow::fs::FileInfo info(path, arrow::fs::FileType::File);
    info.set_size(*size);
    auto opened = filesystem_->OpenInputFile(info);
    if (!opened.ok()) return Typed(opened.status());
    inner = *opened;
  } else {
    auto opened = filesystem_->OpenInputFile(path);
    if (!opened.ok()) {
      if (opened.status().message().find("Path does not exist") != std::string::npos) {
        return NotFound("file ", shown, " does not exist");
      }
      return Typed(opened.status());
    }
    inner = *opened;
    auto asked = inner->GetSize();
    if (!asked.ok()) return Typed(asked.status());
    size = *asked;
    cache.SetSize(key, *size);
  }
  // The file may outlive this store (a reader cached beyond its dataset): what it needs to
  // type errors is copied.
  return std::make_shared<CachedObjectFile>(
      std::move(inner), key, shown, *size, &cache, CachedObjectFile::ConfiguredChunkBytes(),
      [where = Where(), deadline = DeadlineSeconds()](const arrow::Status& status) {
        return TypedS3Failure(status, where, deadline);
      });
}

arrow::Result<ObjectVersion> S3Store::Head(std::string_view relative) {
  const std::string name(relative);
  ARROW_ASSIGN_OR_RAISE(HttpResponse response, Send("HEAD", name, {}, {}, nullptr));
  if (response.status != 200) return Refused(response, "reading", name);
  ObjectVersion version;
  const auto header = [&](const char* field) -> std::string {
    auto found = response.headers.find(field);
    return found == response.headers.end() ? "" : found->second;
  };
  version.etag = header("etag");
  const std::string length = header("content-length");
  char* end = nullptr;
  version.size = length.empty() ? -1 : std::strtoll(length.c_str(), &end, 10);
  if (version.etag.empty() || version.size < 0 || *end != '\0') {
    return Error(ErrorKind::kIOError, settings_.StoreName(), " described ", location_.Uri(), "/",
                 name, " without an ETag or a length; tessera needs both to read it");
  }
  version.modified_nanos = ModifiedNanos(header("last-modified"));
  return version;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> S3Store::ReadPinnedRange(std::string_view relative,
                                                                       const std::string& etag,
                                                                       int64_t begin,
                                                                       int64_t length) {
  if (length <= 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  const std::string name(relative);
  ARROW_ASSIGN_OR_RAISE(
      HttpResponse response,
      Send("GET", name,
           {{"Range", "bytes=" + std::to_string(begin) + "-" + std::to_string(begin + length - 1)},
            {"If-Match", etag}},
           {}, nullptr));
  const auto changed = [&](const std::string& how) {
    return Error(ErrorKind::kStale, location_.Uri(), "/", name, " ", how, " since its version ",
                 etag,
                 " was recorded; restore it, or run `tessera refresh` to record what it holds "
                 "now");
  };
  // The answer must be of the pinned version and the range asked: a store or a proxy that
  // ignored If-Match, or answered another request's range, must not pass bytes off as these.
  const auto header = [&](const char* field) -> std::string {
    auto found = response.headers.find(field);
    return found == response.headers.end() ? "" : found->second;
  };
  if ((response.status == 200 || response.status == 206) && !header("etag").empty() &&
      header("etag") != etag) {
    return changed("was rewritten (its ETag is now " + header("etag") + ")");
  }
  switch (response.status) {
    case 206: {
      const std::string range = header("content-range");
      const std::string expected = "bytes " + std::to_string(begin) + "-";
      if (!range.empty() && range.rfind(expected, 0) != 0) {
        return Error(ErrorKind::kIOError, settings_.StoreName(), " answered range '", range,
                     "' of ", location_.Uri(), "/", name, " for bytes ", begin, "-",
                     begin + length - 1);
      }
      return arrow::Buffer::FromString(std::move(response.body));
    }
    case 200: {
      // A store that ignores Range answers with the whole object.
      auto whole = arrow::Buffer::FromString(std::move(response.body));
      if (whole->size() <= begin) return std::make_shared<arrow::Buffer>(nullptr, 0);
      return arrow::SliceBuffer(whole, begin, std::min(length, whole->size() - begin));
    }
    case 416: {
      // The range starts past the end: a shorter object of another version, or fewer bytes
      // than the pinned version promised (the caller's Corrupt).
      auto now = Head(name);
      if (now.ok() && now->etag != etag) return changed("was rewritten");
      return std::make_shared<arrow::Buffer>(nullptr, 0);
    }
    case 404:
      return changed("no longer exists");
    case 412:
      return changed("was rewritten (its ETag differs)");
    default:
      return Refused(response, "reading", name);
  }
}

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> S3Store::OpenPinned(
    std::string_view relative, const ObjectVersion& version) {
  const std::string name(relative);
  auto inner = std::make_shared<PinnedObjectFile>(shared_from_this(), name, version);
  return std::make_shared<CachedObjectFile>(
      std::move(inner), CacheKey(relative) + "#" + version.etag, location_.Uri() + "/" + name,
      version.size, &ObjectCache::Instance(), CachedObjectFile::ConfiguredChunkBytes(),
      [where = Where(), deadline = DeadlineSeconds()](const arrow::Status& status) {
        return TypedS3Failure(status, where, deadline);
      });
}

arrow::Status S3Store::CheckConditionalPutsHonoured() {
  // Whether a store honours conditions is its own property: asked once per process and bucket.
  static std::mutex mutex;
  static auto* verdicts = new std::map<std::string, arrow::Status>();  // never destroyed
  const std::string store = settings_.StoreName() + "/" + location_.bucket;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = verdicts->find(store); found != verdicts->end()) return found->second;
  bool ignored_flag = false;
  ARROW_ASSIGN_OR_RAISE(PutOutcome first,
                        ConditionalPut(std::string(kProbe), "probe", &ignored_flag));
  arrow::Status verdict = arrow::Status::OK();
  if (first == PutOutcome::kCreated) {
    ARROW_ASSIGN_OR_RAISE(PutOutcome second,
                          ConditionalPut(std::string(kProbe), "probe", &ignored_flag));
    if (second == PutOutcome::kCreated) {
      verdict = Unsupported(
          settings_.StoreName(), " ignores conditional puts (If-None-Match), so commits to ",
          location_.Uri(),
          " cannot be made atomic there and writes are refused; use a store that supports "
          "them, or set TESSERA_S3_SINGLE_WRITER=1 if a single process ever writes this "
          "dataset (docs/objstore.md)");
    }
  }
  verdicts->emplace(store, verdict);
  return verdict;
}

arrow::Result<bool> S3Store::PutIfAbsent(std::string_view relative, std::string_view contents) {
  const std::string name(relative);
  if (settings_.single_writer) {
    // The store may ignore the condition: do not overwrite what is visibly there.
    auto info = filesystem_->GetFileInfo(location_.FilesystemPath() + "/" + name);
    if (!info.ok()) return Typed(info.status());
    if (info->type() != arrow::fs::FileType::NotFound) return false;
  } else {
    ARROW_RETURN_NOT_OK(CheckConditionalPutsHonoured());
  }
  CrashPoint(kCrashWhileWritingManifest);
  bool maybe_applied = false;
  auto outcome = ConditionalPut(name, contents, &maybe_applied);
  if (outcome.ok() && *outcome == PutOutcome::kCreated) return true;
  if (!maybe_applied) {
    if (!outcome.ok()) return outcome.status();
    return false;
  }
  // An attempt whose answer was lost may have created the object: it is ours if it holds our
  // bytes (every manifest holds a fresh transaction id).
  auto stored = ReadObject(name);
  if (stored.ok()) {
    // Another writer's: this put was not applied, a conflict like any other.
    return (*stored)->ToString() == contents;
  }
  // Absent now, a put whose answer was lost may still be applied later; or the read failed.
  return Error(ErrorKind::kIndeterminate, "the outcome of writing ", location_.Uri(), "/", name,
               " is unknown: an attempt's answer was lost and the object is not readable yet (",
               stored.status().message(),
               "); run `tessera versions` to see whether the operation committed before "
               "repeating it");
}

}  // namespace tessera::io
