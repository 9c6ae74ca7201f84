#include "daemon/upload/s3_url.h"

#include <gtest/gtest.h>

namespace gotraced::upload {
namespace {

TEST(S3Url, Endpoints) {
  std::string err;
  auto a = ParseEndpoint("https://s3.eu-west-1.amazonaws.com", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->scheme, "https");
  EXPECT_EQ(a->HostPort(), "s3.eu-west-1.amazonaws.com");
  auto b = ParseEndpoint("http://127.0.0.1:9000/", &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->port, "9000");
  EXPECT_EQ(b->Text(), "http://127.0.0.1:9000");
  auto c = ParseEndpoint("http://[::1]:7070", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->HostPort(), "[::1]:7070");
}

TEST(S3Url, MalformedEndpointsSayWhy) {
  for (const char *bad : {"s3.example.com", "ftp://h", "http://", "http://h:", "http://h:99999", "http://h:x",
                          "http://h/bucket", "http://u@h", "http://h?x=1", "http://h h", "http://[::1", "http://h_1"}) {
    std::string err;
    EXPECT_FALSE(ParseEndpoint(bad, &err)) << bad;
    EXPECT_NE(err.find("endpoint"), std::string::npos) << bad;
  }
}

TEST(S3Url, Buckets) {
  EXPECT_FALSE(BucketNameProblem("traces"));
  EXPECT_FALSE(BucketNameProblem("my.traces-1"));
  EXPECT_TRUE(BucketNameProblem("ab"));
  EXPECT_TRUE(BucketNameProblem("-ab"));
  EXPECT_TRUE(BucketNameProblem("a/b"));
  EXPECT_TRUE(BucketNameProblem(std::string(64, 'a')));
}

TEST(S3Url, UriEncodeFollowsSigV4) {
  EXPECT_EQ(UriEncode("a-b_c.d~e", false), "a-b_c.d~e");
  EXPECT_EQ(UriEncode("a b+c/d=é", false), "a%20b%2Bc%2Fd%3D%C3%A9");
  EXPECT_EQ(UriEncode("p/n/2026-12-06/x y.trace", true), "p/n/2026-12-06/x%20y.trace");
}

TEST(S3Url, RequestUrlsAreCanonical) {
  std::string err;
  auto ep = *ParseEndpoint("http://127.0.0.1:9000", &err);
  EXPECT_EQ(RequestUrl(ep, "b", true, "g/a b.trace", {}), "http://127.0.0.1:9000/b/g/a%20b.trace");
  EXPECT_EQ(RequestUrl(ep, "b", false, "k", {}), "http://b.127.0.0.1:9000/k");
  // Sorted by name, "name=" for an empty value, values encoded ('/' too).
  EXPECT_EQ(RequestUrl(ep, "b", true, "k", {{"uploadId", "a/b=="}, {"partNumber", "2"}}),
            "http://127.0.0.1:9000/b/k?partNumber=2&uploadId=a%2Fb%3D%3D");
  EXPECT_EQ(RequestUrl(ep, "b", true, "k", {{"uploads", ""}}), "http://127.0.0.1:9000/b/k?uploads=");
  EXPECT_EQ(RequestUrl(ep, "b", true, "", {{"prefix", "g/"}, {"list-type", "2"}}),
            "http://127.0.0.1:9000/b?list-type=2&prefix=g%2F");
}

TEST(S3Url, S3Urls) {
  std::string err;
  auto a = ParseS3Url("s3://bucket/dir/file.trace", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->first, "bucket");
  EXPECT_EQ(a->second, "dir/file.trace");
  EXPECT_FALSE(ParseS3Url("s3://bucket", &err));
  EXPECT_FALSE(ParseS3Url("s3://bucket/", &err));
  EXPECT_FALSE(ParseS3Url("s3://b/k", &err));  // bucket too short
  EXPECT_FALSE(ParseS3Url("/tmp/x", &err));
}

}  // namespace
}  // namespace gotraced::upload
