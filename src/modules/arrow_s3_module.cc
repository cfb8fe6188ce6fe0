// The Arrow S3 module (tessera/io/arrow_s3_module.h): the only code that links Arrow's S3
// filesystem (libarrow_s3, with the AWS SDK), built as a shared library of its own and opened
// by tessera on the first use of an s3:// dataset.
//
// It includes only headers of tessera's io layer that need nothing linked (plain structs and
// the header-only RetryBackoff), so it links no tessera library.
#include <arrow/filesystem/s3fs.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "tessera/io/arrow_s3_module.h"
#include "tessera/io/retry_backoff.h"

namespace tessera::io {

namespace {

// A ranged GET reads the body into the caller's buffer; when the store answers with an error
// document instead (503 SlowDown on a read of a few footer bytes), the SDK fails to write the
// document into that buffer and reports a non-retryable INTERNAL_FAILURE that hides the 503.
// Such a read is retried like the throttling it is.
bool IsUnreadErrorBody(const arrow::fs::S3RetryStrategy::AWSErrorDetail& error) {
  return error.message.find("Failed to flush response stream") != std::string::npos;
}

// Arrow's requests retried with RetryBackoff: throttling, 5xx, timeouts and broken connections
// (the SDK's should_retry), until the deadline.
class BackoffRetryStrategy : public arrow::fs::S3RetryStrategy {
 public:
  explicit BackoffRetryStrategy(RetryBackoff backoff)
      : backoff_(backoff), max_retries_(backoff.MaxRetries()) {}
  bool ShouldRetry(const AWSErrorDetail& error, int64_t attempted_retries) override {
    return (error.should_retry || IsUnreadErrorBody(error)) && attempted_retries < max_retries_;
  }
  int64_t CalculateDelayBeforeNextRetry(const AWSErrorDetail&, int64_t attempted_retries) override {
    return backoff_.Delay(static_cast<int>(attempted_retries)).count();
  }

 private:
  RetryBackoff backoff_;
  int max_retries_;
};

arrow::Status Initialize() { return arrow::fs::EnsureS3Initialized(); }

arrow::Result<std::shared_ptr<arrow::fs::FileSystem>> MakeFilesystem(const S3Settings& settings,
                                                                     const std::string& region) {
  ARROW_RETURN_NOT_OK(Initialize());
  arrow::fs::S3Options options = arrow::fs::S3Options::Defaults();
  options.region = region;
  if (!settings.endpoint_authority.empty()) {
    options.endpoint_override = settings.endpoint_authority;
    options.scheme = settings.endpoint_scheme;
  }
  options.tls_ca_file_path = settings.ca_file;
  options.connect_timeout =
      std::min(5.0, static_cast<double>(settings.request_timeout.count()) / 1000);
  options.request_timeout = static_cast<double>(settings.request_timeout.count()) / 1000;
  options.retry_strategy =
      std::make_shared<BackoffRetryStrategy>(RetryBackoff(settings.retry_deadline));
  // Writes are synchronous, so that a write's failure is the failing call's, not a later one's.
  options.background_writes = false;
  // A file smaller than one upload part is sent as one PutObject instead of a multipart upload
  // (three requests); a failure to open then surfaces at the write or the close, which every
  // writer checks.
  options.allow_delayed_open = true;
  ARROW_ASSIGN_OR_RAISE(auto filesystem, arrow::fs::S3FileSystem::Make(options));
  // The AWS SDK must be shut down at exit, before the objects Arrow's S3 code creates on its
  // first filesystem are destroyed: an exit handler registered after that runs before their
  // destructors. Without it the process crashes in exit().
  static std::once_flag finalize_at_exit;
  std::call_once(finalize_at_exit,
                 [] { std::atexit([] { (void)arrow::fs::EnsureS3Finalized(); }); });
  return std::static_pointer_cast<arrow::fs::FileSystem>(filesystem);
}

arrow::Result<std::string> ResolveRegion(const std::string& bucket) {
  ARROW_RETURN_NOT_OK(Initialize());
  return arrow::fs::ResolveS3BucketRegion(bucket);
}

AwsCredentials Credentials(const arrow::fs::FileSystem& filesystem) {
  const auto& options = static_cast<const arrow::fs::S3FileSystem&>(filesystem).options();
  return AwsCredentials{options.GetAccessKey(), options.GetSecretKey(), options.GetSessionToken()};
}

const ArrowS3Module kModule{kArrowS3ModuleVersion, &MakeFilesystem, &ResolveRegion, &Credentials};

}  // namespace

}  // namespace tessera::io

extern "C" __attribute__((visibility("default"))) const tessera::io::ArrowS3Module*
tessera_arrow_s3_module() {
  return &tessera::io::kModule;
}
