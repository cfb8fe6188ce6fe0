// The kinds of object-storage failures (docs/objstore.md, "Retries and errors").
//
// Arrow reports every failure of its S3 filesystem as IOError, with the AWS SDK's error name
// and the HTTP status in the message ("... AWS Error SLOW_DOWN during GetObject operation" or
// "AWS Error UNKNOWN (HTTP status 503) ..."); it attaches no code. So the name and the status
// are parsed from the message (only those tokens: a key named "AccessDenied" changes nothing)
// and mapped to a tessera kind.
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>

namespace tessera::io {

// `status` of an Arrow call on object storage with its kind, `where` (the dataset and the
// store) appended:
// - PermissionDenied: refused credentials or permission (403, ACCESS_DENIED, ...);
// - NotFound: NO_SUCH_BUCKET, NO_SUCH_KEY, "Path does not exist";
// - Unavailable: unreachable, throttled, 5xx, timed out, after the retries of
//   `retry_deadline_seconds`;
// - otherwise IOError, now carrying tessera's kind (so that readers tell it from Arrow's own
//   IOErrors about damaged bytes). OK, and statuses tessera has typed already, pass unchanged.
arrow::Status TypedS3Failure(const arrow::Status& status, std::string_view where,
                             double retry_deadline_seconds);

// The SDK's error name in an Arrow S3 message ("SLOW_DOWN"), or "".
std::string AwsErrorName(std::string_view message);
// The HTTP status in an Arrow S3 message, or 0.
int AwsHttpStatus(std::string_view message);

}  // namespace tessera::io
