#include "tessera/io/s3_store.h"

#include <arrow/buffer.h>

#include <thread>

#include "tessera/io/arrow_s3_module.h"
#include "tessera/io/fault_injection.h"
#include "tessera/io/http_request.h"
#include "tessera/io/retry_backoff.h"
#include "tessera/io/sha256.h"
#include "tessera/io/sigv4.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

constexpr std::string_view kProbe = "_versions/.conditional-put-probe";

bool Mentions(std::string_view text, std::initializer_list<std::string_view> needles) {
  for (std::string_view needle : needles) {
    if (text.find(needle) != std::string_view::npos) return true;
  }
  return false;
}

// The <Code> of an S3 error document, or "".
std::string ErrorCode(const std::string& body) {
  const size_t begin = body.find("<Code>");
  const size_t end = body.find("</Code>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  return body.substr(begin + 6, end - begin - 6);
}

std::string Described(const HttpResponse& response) {
  if (!response.received) return response.transport_error;
  const std::string code = ErrorCode(response.body);
  return "HTTP " + std::to_string(response.status) + (code.empty() ? "" : " " + code);
}

}  // namespace

arrow::Result<std::shared_ptr<S3Store>> S3Store::Open(std::string_view uri) {
  ARROW_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(uri));
  ARROW_ASSIGN_OR_RAISE(S3Settings settings, S3Settings::FromEnvironment());
  ARROW_ASSIGN_OR_RAISE(const ArrowS3Module* module, LoadArrowS3Module());
  std::string region = settings.region;
  if (region.empty() && !settings.endpoint_authority.empty()) region = "us-east-1";
  if (region.empty()) {
    auto resolved = module->resolve_region(location.bucket);
    if (!resolved.ok()) {
      return Error(ErrorKind::kNotFound, "cannot find the region of bucket '", location.bucket,
                   "' of ", location.Uri(), " (", resolved.status().message(),
                   "); set AWS_REGION, and check the bucket's name");
    }
    region = *resolved;
  }
  auto filesystem = module->make_filesystem(settings, region);
  if (!filesystem.ok()) {
    return WithContext(filesystem.status(), "connecting to " + settings.StoreName());
  }
  std::shared_ptr<S3Store> store(
      new S3Store(location, settings, *filesystem, region));
  auto bucket = store->filesystem_->GetFileInfo(location.bucket);
  if (!bucket.ok()) return store->Typed(bucket.status());
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

arrow::Status S3Store::Typed(const arrow::Status& status) const {
  if (status.ok() || KindOf(status) != ErrorKind::kIOError) return status;
  if (status.detail() != nullptr &&
      std::string_view(status.detail()->type_id()) == ErrorDetail::kTypeId) {
    return status;  // already typed by tessera
  }
  const std::string message = status.message();
  const std::string where = " (dataset " + location_.Uri() + " at " + settings_.StoreName() + ")";
  if (Mentions(message, {"Path does not exist"})) return NotFound(message, where);
  if (Mentions(message, {"ACCESS_DENIED", "INVALID_ACCESS_KEY_ID", "SIGNATURE_DOES_NOT_MATCH",
                         "EXPIRED_TOKEN", "InvalidAccessKeyId", "AccessDenied",
                         "SignatureDoesNotMatch", "HTTP status 403"})) {
    return Error(ErrorKind::kPermissionDenied, message, where,
                 "; check the credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) and the bucket's "
                 "policy");
  }
  if (Mentions(message, {"NO_SUCH_BUCKET", "NoSuchBucket"})) {
    return NotFound(message, where, "; create the bucket first, or check the URI");
  }
  if (Mentions(message, {"NETWORK_CONNECTION", "SLOW_DOWN", "SERVICE_UNAVAILABLE", "THROTTLING",
                         "REQUEST_TIMEOUT", "INTERNAL_FAILURE", "curlCode", "HTTP status 5",
                         "SlowDown", "ServiceUnavailable"})) {
    return Error(ErrorKind::kUnavailable, message, where,
                 "; the store stayed unreachable or throttled past the retry deadline (",
                 settings_.retry_deadline.count() / 1000.0,
                 " s, TESSERA_S3_RETRY_DEADLINE_SECONDS); try again later");
  }
  return WithContext(status, where.substr(1));
}

std::string S3Store::Url(const std::string& relative) const {
  const std::string key = location_.prefix.empty() ? relative : location_.prefix + "/" + relative;
  if (settings_.endpoint_authority.empty()) {
    return "https://" + location_.bucket + ".s3." + region_ + ".amazonaws.com/" +
           UriEncodePath(key);
  }
  return settings_.endpoint_scheme + "://" + settings_.endpoint_authority + "/" +
         location_.bucket + "/" + UriEncodePath(key);
}

arrow::Result<S3Store::PutOutcome> S3Store::ConditionalPut(const std::string& relative,
                                                          std::string_view contents,
                                                          bool* maybe_applied) {
  const std::string key = location_.prefix.empty() ? relative : location_.prefix + "/" + relative;
  const bool aws = settings_.endpoint_authority.empty();
  SignableRequest signable;
  signable.method = "PUT";
  signable.host = aws ? location_.bucket + ".s3." + region_ + ".amazonaws.com"
                      : settings_.endpoint_authority;
  signable.path = aws ? "/" + key : "/" + location_.bucket + "/" + key;
  signable.headers = {{"If-None-Match", "*"}};
  signable.payload_sha256_hex = HexDigest(Sha256(contents.data(), contents.size()));
  const std::string what = location_.Uri() + "/" + relative;

  const RetryBackoff backoff(settings_.retry_deadline);
  const auto start = std::chrono::steady_clock::now();
  std::string last_failure;
  for (int retry = 0;; ++retry) {
    // Credentials are asked for at each attempt: temporary ones may have been renewed.
    ARROW_ASSIGN_OR_RAISE(const ArrowS3Module* module, LoadArrowS3Module());
    const AwsCredentials credentials = module->credentials(*filesystem_);
    HttpRequest request;
    request.method = "PUT";
    request.url = Url(relative);
    request.headers = SignV4(signable, credentials, region_, "s3", AmzDateNow());
    request.body = contents;
    request.timeout = settings_.request_timeout;
    request.ca_file = settings_.ca_file;
    ARROW_ASSIGN_OR_RAISE(HttpResponse response, SendHttpRequest(request));
    bool transient = false;
    if (!response.received) {
      *maybe_applied = true;
      transient = true;
    } else {
      switch (response.status) {
        case 200:
        case 201:
          return PutOutcome::kCreated;
        case 412:
          return PutOutcome::kExists;
        case 409:  // ConditionalRequestConflict: a racing conditional put is in flight
          transient = true;
          break;
        case 429:
        case 500:
        case 502:
        case 503:
        case 504:
          *maybe_applied = true;
          transient = true;
          break;
        case 403:
          return Error(ErrorKind::kPermissionDenied, settings_.StoreName(), " refused to write ",
                       what, " (", Described(response),
                       "); check the credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) and that they "
                       "may write the bucket");
        case 404:
          return NotFound("cannot write ", what, ": ", Described(response),
                          "; does the bucket still exist?");
        case 501:
          return Unsupported(settings_.StoreName(), " does not implement conditional puts (",
                             Described(response), "), which commits to ", location_.Uri(),
                             " need; set TESSERA_S3_SINGLE_WRITER=1 only if a single process "
                             "ever writes this dataset (docs/objstore.md)");
        default:
          return Error(ErrorKind::kIOError, "writing ", what, " failed: ", Described(response));
      }
    }
    last_failure = Described(response);
    const auto delay = backoff.Delay(retry);
    if (!transient || retry >= backoff.MaxRetries() ||
        std::chrono::steady_clock::now() - start + delay > backoff.deadline()) {
      return Error(ErrorKind::kUnavailable, "writing ", what, " failed after ", retry + 1,
                   " attempts over ", settings_.retry_deadline.count() / 1000.0,
                   " s (TESSERA_S3_RETRY_DEADLINE_SECONDS); last: ", last_failure,
                   "; nothing was committed, try again later");
    }
    std::this_thread::sleep_for(delay);
  }
}

arrow::Status S3Store::CheckConditionalPutsHonoured() {
  std::lock_guard<std::mutex> lock(probe_mutex_);
  if (probe_) return *probe_;
  bool ignored_flag = false;
  ARROW_ASSIGN_OR_RAISE(PutOutcome first,
                        ConditionalPut(std::string(kProbe), "probe", &ignored_flag));
  if (first == PutOutcome::kCreated) {
    ARROW_ASSIGN_OR_RAISE(PutOutcome second,
                          ConditionalPut(std::string(kProbe), "probe", &ignored_flag));
    if (second == PutOutcome::kCreated) {
      probe_ = Unsupported(
          settings_.StoreName(), " ignores conditional puts (If-None-Match), so commits to ",
          location_.Uri(),
          " cannot be made atomic there and writes are refused; use a store that supports "
          "them, or set TESSERA_S3_SINGLE_WRITER=1 if a single process ever writes this "
          "dataset (docs/objstore.md)");
      return *probe_;
    }
  }
  probe_ = arrow::Status::OK();
  return *probe_;
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
  ARROW_ASSIGN_OR_RAISE(PutOutcome outcome, ConditionalPut(name, contents, &maybe_applied));
  if (outcome == PutOutcome::kCreated) return true;
  if (!maybe_applied) return false;
  // An earlier attempt may have created the object: it is ours if it holds our bytes.
  auto file = filesystem_->OpenInputFile(location_.FilesystemPath() + "/" + name);
  if (!file.ok()) return Typed(file.status());
  auto size = (*file)->GetSize();
  if (!size.ok()) return Typed(size.status());
  auto bytes = (*file)->ReadAt(0, *size);
  if (!bytes.ok()) return Typed(bytes.status());
  return (*bytes)->ToString() == contents;
}

}  // namespace tessera::io
