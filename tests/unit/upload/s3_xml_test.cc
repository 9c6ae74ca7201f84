#include "daemon/upload/s3_xml.h"

#include <gtest/gtest.h>

namespace gotraced::upload {
namespace {

TEST(S3Xml, ErrorDocument) {
  const char *body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
      "<Message>The request signature we calculated does not match the signature you provided. Check your key "
      "and signing method.</Message><Resource>/b/k</Resource><RequestId>17E</RequestId><HostId>x</HostId></Error>";
  auto e = ParseS3Error(body);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, "SignatureDoesNotMatch");
  EXPECT_NE(e->message.find("signature"), std::string::npos);
}

TEST(S3Xml, NotAnErrorDocument) {
  EXPECT_FALSE(ParseS3Error("<html><body>404 Not Found</body></html>"));
  EXPECT_FALSE(ParseS3Error("Not Found"));
  EXPECT_FALSE(ParseS3Error(""));
  EXPECT_FALSE(ParseS3Error("<Error><Message>no code</Message></Error>"));
}

TEST(S3Xml, EntitiesCdataCommentsNamespaces) {
  std::string err;
  auto x = ParseXml("<?xml version=\"1.0\"?><!-- c --><a:R xmlns:a=\"http://s3.amazonaws.com/doc/2006-03-01/\" "
                    "q='>'><a:K>x&amp;y&lt;&#65;&#x42;&quot;</a:K><K2><![CDATA[<raw>&amp;]]></K2><E/></a:R>",
                    &err);
  ASSERT_TRUE(x) << err;
  EXPECT_EQ(x->name, "R");
  EXPECT_EQ(x->ChildText("K"), "x&y<AB\"");
  EXPECT_EQ(x->ChildText("K2"), "<raw>&amp;");
  ASSERT_TRUE(x->Child("E"));
  EXPECT_EQ(x->ChildText("Missing"), "");
}

TEST(S3Xml, Utf8CharacterReferences) {
  std::string err;
  auto x = ParseXml("<K>&#233;&#x1F600;</K>", &err);
  ASSERT_TRUE(x) << err;
  EXPECT_EQ(x->text, "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(S3Xml, MalformedIsAnErrorNeverAGuess) {
  for (const char *bad : {"<a>", "<a></b>", "<a><b></a></b>", "<a>&bogus;</a>", "<a>&#0;</a>", "<a>&#xD800;</a>",
                          "<a x=1></a>", "<a x=\"1></a>", "<a></a><b></b>", "text", "<a><!DOCTYPE x></a>",
                          "<a><![CDATA[x</a>", "<>", "<a>&amp</a>"}) {
    std::string err;
    EXPECT_FALSE(ParseXml(bad, &err)) << bad;
    EXPECT_NE(err.find("malformed XML"), std::string::npos) << bad;
  }
}

TEST(S3Xml, DepthIsBounded) {
  std::string deep;
  for (int i = 0; i < kMaxXmlDepth + 1; i++) deep += "<a>";
  for (int i = 0; i < kMaxXmlDepth + 1; i++) deep += "</a>";
  std::string err;
  EXPECT_FALSE(ParseXml(deep, &err));
  EXPECT_NE(err.find("deeply"), std::string::npos);
}

TEST(S3Xml, InitiateMultipart) {
  std::string err;
  auto id = ParseUploadId(
      "<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket>"
      "<Key>k</Key><UploadId>VXBsb2FkIElE</UploadId></InitiateMultipartUploadResult>",
      &err);
  ASSERT_TRUE(id) << err;
  EXPECT_EQ(*id, "VXBsb2FkIElE");
  EXPECT_FALSE(ParseUploadId("<InitiateMultipartUploadResult></InitiateMultipartUploadResult>", &err));
  EXPECT_FALSE(ParseUploadId("<ListBucketResult/>", &err));
  EXPECT_NE(err.find("ListBucketResult"), std::string::npos);
}

TEST(S3Xml, CompleteMultipartSuccessAndErrorIn200) {
  std::string err;
  auto ok = ParseCompleteMultipart("<CompleteMultipartUploadResult><Location>l</Location><Bucket>b</Bucket><Key>k</Key>"
                                   "<ETag>&quot;3858f62230ac3c915f300c664312c11f-9&quot;</ETag>"
                                   "</CompleteMultipartUploadResult>",
                                   &err);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(ok->etag, "\"3858f62230ac3c915f300c664312c11f-9\"");
  EXPECT_FALSE(ok->error);
  auto bad = ParseCompleteMultipart("<Error><Code>InternalError</Code><Message>m</Message></Error>", &err);
  ASSERT_TRUE(bad);
  ASSERT_TRUE(bad->error);
  EXPECT_EQ(bad->error->code, "InternalError");
}

TEST(S3Xml, ListObjectsV2) {
  std::string err;
  auto p = ParseListObjectsV2(
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>g/</Prefix>"
      "<KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>"
      "<Contents><Key>g/n/2026-12-06/a.trace</Key><LastModified>2026-12-06T12:00:00.000Z</LastModified>"
      "<ETag>\"e1\"</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>"
      "<Contents><Key>g/n/b&amp;c.trace</Key><Size>0</Size></Contents>"
      "<NextContinuationToken>tok/+=</NextContinuationToken></ListBucketResult>",
      &err);
  ASSERT_TRUE(p) << err;
  ASSERT_EQ(p->objects.size(), 2u);
  EXPECT_EQ(p->objects[0].key, "g/n/2026-12-06/a.trace");
  EXPECT_EQ(p->objects[0].size, 1234u);
  EXPECT_EQ(p->objects[0].etag, "\"e1\"");
  EXPECT_EQ(p->objects[1].key, "g/n/b&c.trace");
  EXPECT_TRUE(p->truncated);
  EXPECT_EQ(p->next_token, "tok/+=");
}

TEST(S3Xml, ListObjectsV2Refusals) {
  std::string err;
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>", &err));
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>x</Size></Contents></ListBucketResult>", &err));
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", &err));
  EXPECT_FALSE(ParseListObjectsV2("<html/>", &err));
  auto empty = ParseListObjectsV2("<ListBucketResult><KeyCount>0</KeyCount></ListBucketResult>", &err);
  ASSERT_TRUE(empty) << err;
  EXPECT_TRUE(empty->objects.empty());
}

TEST(S3Xml, ListMultipartUploads) {
  std::string err;
  auto u = ParseListMultipartUploads(
      "<ListMultipartUploadsResult><Bucket>b</Bucket><Upload><Key>k1</Key><UploadId>u1</UploadId>"
      "<Initiated>2026-12-06T12:00:00.000Z</Initiated></Upload><IsTruncated>false</IsTruncated>"
      "</ListMultipartUploadsResult>",
      &err);
  ASSERT_TRUE(u) << err;
  ASSERT_EQ(u->size(), 1u);
  EXPECT_EQ((*u)[0].key, "k1");
  EXPECT_EQ((*u)[0].upload_id, "u1");
  EXPECT_FALSE(ParseListMultipartUploads("<ListMultipartUploadsResult><Upload><Key>k</Key></Upload>"
                                         "</ListMultipartUploadsResult>",
                                         &err));
}

}  // namespace
}  // namespace gotraced::upload
