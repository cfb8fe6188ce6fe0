// Dataset URIs on S3 and the settings read from the environment (io/s3_settings.h): what is
// refused (credentials or options in the URI, bad bucket names, malformed variables).
#include "tessera/io/s3_settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::io::s3_settings_test {
namespace {

// Sets an environment variable for the scope of a test.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    had_ = std::getenv(name) != nullptr;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(S3Uri, ParsesBucketAndPrefix) {
  auto location = ParseS3Uri("s3://my-bucket/some/prefix/");
  ASSERT_TRUE(location.ok()) << location.status();
  EXPECT_EQ(location->bucket, "my-bucket");
  EXPECT_EQ(location->prefix, "some/prefix");
  EXPECT_EQ(location->Uri(), "s3://my-bucket/some/prefix");
  EXPECT_EQ(location->FilesystemPath(), "my-bucket/some/prefix");
  auto root = ParseS3Uri("s3://my-bucket");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->prefix, "");
  EXPECT_EQ(root->Uri(), "s3://my-bucket");
}

TEST(S3Uri, RefusesCredentialsInTheUriWithoutQuotingThem) {
  auto parsed = ParseS3Uri("s3://AKIDEXAMPLE:SECRETVALUE@my-bucket/data");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidArgument);
  EXPECT_EQ(parsed.status().message().find("SECRETVALUE"), std::string::npos) << parsed.status();
  EXPECT_NE(parsed.status().message().find("user information"), std::string::npos)
      << parsed.status();
}

TEST(S3Uri, NeverQuotesASecretEvenOneWithASlashOrInTheQuery) {
  for (const char* uri : {"s3://AKIA:wJalr/K7MDENGSECRET@my-bucket/x",
                          "s3://my-bucket/x?secret_key=wJalr/K7MDENGSECRET",
                          "s3://Bad_Bucket/x?secret_key=K7MDENGSECRET"}) {
    auto parsed = ParseS3Uri(uri);
    ASSERT_FALSE(parsed.ok()) << uri;
    EXPECT_EQ(parsed.status().message().find("K7MDENGSECRET"), std::string::npos)
        << parsed.status();
  }
}

TEST(S3ObjectUri, TakesAnyKeyAndRefusesBadBucketsAndCredentialsWithoutQuotingThem) {
  for (const char* uri : {"s3://my-bucket/exports/part?1.parquet", "s3://my-bucket/a b/c+d@e#f",
                          "s3://my-bucket/a//b/../c", "s3://my-bucket/ünïcode.parquet"}) {
    ASSERT_OK_AND_ASSIGN(S3Object object, ParseS3ObjectUri(uri));
    EXPECT_EQ(object.bucket, "my-bucket");
    EXPECT_EQ(object.Uri(), uri);
  }
  for (const char* uri :
       {"s3://my-bucket", "s3://my-bucket/", "s3://My_Bucket/x", "file:///tmp/x.parquet",
        "s3://AKIA:SECRETVALUE@my-bucket/x", "s3://AKIA:wJalr/K7SECRETVALUE@my-bucket/x"}) {
    auto parsed = ParseS3ObjectUri(uri);
    ASSERT_FALSE(parsed.ok()) << uri;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidArgument) << uri;
    EXPECT_EQ(parsed.status().message().find("SECRETVALUE"), std::string::npos) << parsed.status();
  }
}

TEST(S3Uri, RefusesQueriesBadBucketsAndDotSegments) {
  for (const char* uri : {"s3://my-bucket/data?access_key=x", "s3://My_Bucket/data", "s3://ab/data",
                          "s3:///data", "s3://-bucket/x", "s3://my-bucket/a//b",
                          "s3://my-bucket/../x", "s3://my-bucket/a/./b", "file:///tmp/x"}) {
    auto parsed = ParseS3Uri(uri);
    ASSERT_FALSE(parsed.ok()) << uri;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidArgument) << uri;
  }
}

TEST(S3Settings, ReadsTheEndpointRegionAndModesFromTheEnvironment) {
  ScopedVariable endpoint("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/");
  ScopedVariable default_port("AWS_ENDPOINT_URL_S3", "https://store.example:443");
  {
    auto with_default_port = S3Settings::FromEnvironment();
    ASSERT_TRUE(with_default_port.ok()) << with_default_port.status();
    EXPECT_EQ(with_default_port->endpoint_authority, "store.example");
  }
  unsetenv("AWS_ENDPOINT_URL_S3");
  ScopedVariable region("AWS_REGION", "eu-west-3");
  ScopedVariable single("TESSERA_S3_SINGLE_WRITER", "1");
  ScopedVariable deadline("TESSERA_S3_RETRY_DEADLINE_SECONDS", "2.5");
  auto settings = S3Settings::FromEnvironment();
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->endpoint_scheme, "http");
  EXPECT_EQ(settings->endpoint_authority, "127.0.0.1:9000");
  EXPECT_EQ(settings->region, "eu-west-3");
  EXPECT_TRUE(settings->single_writer);
  EXPECT_EQ(settings->retry_deadline.count(), 2500);
  EXPECT_EQ(settings->StoreName(), "http://127.0.0.1:9000");
}

TEST(S3Settings, MalformedVariablesAreInvalidArgumentNamingThem) {
  {
    ScopedVariable endpoint("AWS_ENDPOINT_URL_S3", "ftp://host");
    auto settings = S3Settings::FromEnvironment();
    ASSERT_FALSE(settings.ok());
    EXPECT_NE(settings.status().message().find("AWS_ENDPOINT_URL_S3"), std::string::npos);
  }
  {
    ScopedVariable endpoint("AWS_ENDPOINT_URL_S3", "http://user:pw@host:9000");
    auto settings = S3Settings::FromEnvironment();
    ASSERT_FALSE(settings.ok());
    EXPECT_EQ(settings.status().message().find("pw"), std::string::npos) << settings.status();
  }
  {
    ScopedVariable deadline("TESSERA_S3_RETRY_DEADLINE_SECONDS", "soon");
    auto settings = S3Settings::FromEnvironment();
    ASSERT_FALSE(settings.ok());
    EXPECT_NE(settings.status().message().find("TESSERA_S3_RETRY_DEADLINE_SECONDS"),
              std::string::npos);
  }
  {
    ScopedVariable single("TESSERA_S3_SINGLE_WRITER", "yes");
    EXPECT_FALSE(S3Settings::FromEnvironment().ok());
  }
}

}  // namespace
}  // namespace tessera::io::s3_settings_test
