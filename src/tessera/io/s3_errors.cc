#include "tessera/io/s3_errors.h"

#include <cctype>

#include "tessera/status.h"

namespace tessera::io {

namespace {

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view candidate : names) {
    if (name == candidate) return true;
  }
  return false;
}

}  // namespace

std::string AwsErrorName(std::string_view message) {
  constexpr std::string_view kMarker = "AWS Error ";
  const size_t at = message.rfind(kMarker);  // the SDK's part comes last
  if (at == std::string_view::npos) return "";
  size_t end = at + kMarker.size();
  while (end < message.size() &&
         (std::isupper(static_cast<unsigned char>(message[end])) || message[end] == '_')) {
    ++end;
  }
  return std::string(message.substr(at + kMarker.size(), end - at - kMarker.size()));
}

int AwsHttpStatus(std::string_view message) {
  constexpr std::string_view kMarker = "HTTP status ";
  const size_t at = message.rfind(kMarker);
  if (at == std::string_view::npos) return 0;
  int status = 0;
  for (size_t i = at + kMarker.size();
       i < message.size() && std::isdigit(static_cast<unsigned char>(message[i])); ++i) {
    status = status * 10 + (message[i] - '0');
  }
  return status;
}

arrow::Status TypedS3Failure(const arrow::Status& status, std::string_view where,
                             double retry_deadline_seconds) {
  if (status.ok() || KindOf(status) != ErrorKind::kIOError) return status;
  if (HasErrorDetail(status)) return status;  // typed by tessera already
  const std::string& message = status.message();
  const std::string name = AwsErrorName(message);
  const int http = AwsHttpStatus(message);
  if (OneOf(name, {"ACCESS_DENIED", "INVALID_ACCESS_KEY_ID", "SIGNATURE_DOES_NOT_MATCH",
                   "EXPIRED_TOKEN", "INVALID_CLIENT_TOKEN_ID", "MISSING_AUTHENTICATION_TOKEN",
                   "REQUEST_TIME_TOO_SKEWED"}) ||
      http == 403) {
    return PermissionDenied(message, " (", where,
                            "); check the credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE), the "
                            "bucket's policy, and the clock (signatures expire)");
  }
  if (OneOf(name, {"NO_SUCH_BUCKET", "NO_SUCH_KEY", "RESOURCE_NOT_FOUND"}) ||
      message.find("Path does not exist") != std::string::npos) {
    return NotFound(message, " (", where, ")");
  }
  if (OneOf(name, {"NETWORK_CONNECTION", "SLOW_DOWN", "SERVICE_UNAVAILABLE", "THROTTLING",
                   "REQUEST_TIMEOUT", "INTERNAL_FAILURE"}) ||
      http == 429 || (http >= 500 && http != 501)) {
    return Unavailable(message, " (", where,
                       "); the store stayed unreachable, throttled or failing through the "
                       "retries (deadline ",
                       retry_deadline_seconds,
                       " s, TESSERA_S3_RETRY_DEADLINE_SECONDS); try "
                       "again later");
  }
  return Error(ErrorKind::kIOError, message, " (", where, ")");
}

}  // namespace tessera::io
