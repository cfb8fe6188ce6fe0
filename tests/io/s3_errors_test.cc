// Kinds of object-storage failures (io/s3_errors.h), from messages of the form Arrow's S3
// filesystem writes: only the SDK's error name and the HTTP status decide, never a key name.
#include "tessera/io/s3_errors.h"

#include <gtest/gtest.h>

#include "tessera/status.h"

namespace tessera::io::s3_errors_test {
namespace {

ErrorKind KindOfMessage(const std::string& message) {
  return KindOf(TypedS3Failure(arrow::Status::IOError(message), "dataset s3://b/d", 30));
}

TEST(S3Errors, MapsTheSdkErrorNamesAndHttpStatuses) {
  EXPECT_EQ(KindOfMessage("When reading information for key 'd/x' in bucket 'b': AWS Error "
                          "ACCESS_DENIED during HeadObject operation: No response body."),
            ErrorKind::kPermissionDenied);
  EXPECT_EQ(KindOfMessage("AWS Error UNKNOWN (HTTP status 403) during GetObject operation"),
            ErrorKind::kPermissionDenied);
  EXPECT_EQ(KindOfMessage("AWS Error NO_SUCH_KEY during GetObject operation: gone"),
            ErrorKind::kNotFound);
  EXPECT_EQ(KindOfMessage("AWS Error NO_SUCH_BUCKET during ListObjectsV2 operation"),
            ErrorKind::kNotFound);
  EXPECT_EQ(KindOfMessage("Path does not exist 'b/d/x'"), ErrorKind::kNotFound);
  EXPECT_EQ(KindOfMessage("AWS Error SLOW_DOWN during GetObject operation: reduce your rate"),
            ErrorKind::kUnavailable);
  EXPECT_EQ(KindOfMessage("AWS Error NETWORK_CONNECTION during HeadObject operation: curlCode: "
                          "7, Could not connect to server"),
            ErrorKind::kUnavailable);
  EXPECT_EQ(KindOfMessage("AWS Error UNKNOWN (HTTP status 503) during PutObject operation"),
            ErrorKind::kUnavailable);
  EXPECT_EQ(KindOfMessage("AWS Error UNKNOWN (HTTP status 400) during PutObject operation"),
            ErrorKind::kIOError);
}

TEST(S3Errors, KeyNamesThatLookLikeErrorsChangeNothing) {
  EXPECT_EQ(KindOfMessage("When uploading part for key 'AccessDenied/SlowDown-x' in bucket "
                          "'b': AWS Error UNKNOWN (HTTP status 400) during UploadPart"),
            ErrorKind::kIOError);
}

TEST(S3Errors, TypedStatusesAndOtherKindsPassUnchanged) {
  const arrow::Status corrupt = Corrupt("file x is damaged");
  EXPECT_EQ(TypedS3Failure(corrupt, "w", 30).message(), corrupt.message());
  const arrow::Status typed = Error(ErrorKind::kIOError, "AWS Error SLOW_DOWN typed already");
  EXPECT_EQ(KindOf(TypedS3Failure(typed, "w", 30)), ErrorKind::kIOError);
  EXPECT_TRUE(TypedS3Failure(arrow::Status::OK(), "w", 30).ok());
}

TEST(S3Errors, ParsesNameAndStatus) {
  EXPECT_EQ(AwsErrorName("x: AWS Error SLOW_DOWN during y"), "SLOW_DOWN");
  EXPECT_EQ(AwsErrorName("no error here"), "");
  EXPECT_EQ(AwsHttpStatus("AWS Error UNKNOWN (HTTP status 503) during"), 503);
  EXPECT_EQ(AwsHttpStatus("nothing"), 0);
}

}  // namespace
}  // namespace tessera::io::s3_errors_test
