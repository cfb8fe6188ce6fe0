// AWS Signature Version 4 (io/sigv4.h): the signatures of the two S3 examples AWS publishes
// (a ranged GET and a PUT with a body and extra headers), and the headers a request is sent
// with.
#include "tessera/io/sigv4.h"

#include <gtest/gtest.h>

#include <map>

#include "tessera/io/sha256.h"

namespace tessera::io::sigv4_test {
namespace {

const AwsCredentials kExampleCredentials{"AKIAIOSFODNN7EXAMPLE",
                                         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};

std::map<std::string, std::string> AsMap(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  return {headers.begin(), headers.end()};
}

TEST(SigV4, SignsTheGetObjectExampleOfTheS3Documentation) {
  SignableRequest request;
  request.method = "GET";
  request.host = "examplebucket.s3.amazonaws.com";
  request.path = "/test.txt";
  request.headers = {{"Range", "bytes=0-9"}};
  request.payload_sha256_hex = HexDigest(Sha256("", 0));
  const auto headers =
      AsMap(SignV4(request, kExampleCredentials, "us-east-1", "s3", "20130524T000000Z"));
  EXPECT_EQ(headers.at("Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(headers.at("x-amz-date"), "20130524T000000Z");
  EXPECT_EQ(headers.count("x-amz-security-token"), 0u);
}

TEST(SigV4, SignsThePutObjectExampleOfTheS3Documentation) {
  const std::string body = "Welcome to Amazon S3.";
  SignableRequest request;
  request.method = "PUT";
  request.host = "examplebucket.s3.amazonaws.com";
  request.path = "/test$file.text";
  request.headers = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                     {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  request.payload_sha256_hex = HexDigest(Sha256(body.data(), body.size()));
  EXPECT_EQ(request.payload_sha256_hex,
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const auto headers =
      AsMap(SignV4(request, kExampleCredentials, "us-east-1", "s3", "20130524T000000Z"));
  EXPECT_EQ(headers.at("Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, TemporaryCredentialsSendAndSignTheSessionToken) {
  SignableRequest request;
  request.method = "PUT";
  request.host = "127.0.0.1:9000";
  request.path = "/bucket/_versions/1.manifest";
  request.headers = {{"If-None-Match", "*"}};
  request.payload_sha256_hex = HexDigest(Sha256("", 0));
  AwsCredentials credentials = kExampleCredentials;
  credentials.session_token = "token";
  const auto headers = AsMap(SignV4(request, credentials, "us-east-1", "s3", "20261207T000000Z"));
  EXPECT_EQ(headers.at("x-amz-security-token"), "token");
  EXPECT_NE(headers.at("Authorization")
                .find("SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date;"
                      "x-amz-security-token,"),
            std::string::npos)
      << headers.at("Authorization");
  EXPECT_EQ(headers.at("Authorization").find("wJalr"), std::string::npos)
      << "the secret never appears in a header";
}

TEST(SigV4, PathsAreEncodedOnceKeepingSlashes) {
  EXPECT_EQ(UriEncodePath("/a b/c$d~e_f-g.h/%"), "/a%20b/c%24d~e_f-g.h/%25");
  EXPECT_EQ(AmzDateNow().size(), 16u);
}

}  // namespace
}  // namespace tessera::io::sigv4_test
