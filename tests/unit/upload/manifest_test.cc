#include "daemon/upload/manifest.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace gotraced::upload {
namespace {

TEST(Manifest, RoundTrip) {
  ManifestEntry e;
  e.file = "api-1-x.before.trace";
  e.key = "g/n/d/x.before.trace";
  e.metadata = {{"pid", "1"}, {"exe", "/bin/\"q\""}};
  e.queued_unix_ns = 1796559194015000000;
  e.multipart_upload_id = "id/1";
  e.attempts = 3;
  e.last_error = "403 SignatureDoesNotMatch: m";
  std::string err;
  auto back = ParseManifest(ManifestJson(e), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->file, e.file);
  EXPECT_EQ(back->key, e.key);
  EXPECT_EQ(back->metadata, e.metadata);
  EXPECT_EQ(back->queued_unix_ns, e.queued_unix_ns);
  EXPECT_EQ(back->multipart_upload_id, e.multipart_upload_id);
  EXPECT_EQ(back->attempts, 3u);
  EXPECT_EQ(back->last_error, e.last_error);
}

TEST(Manifest, Refusals) {
  std::string err;
  for (const char *bad : {"", "[]", "{\"file\":\"a\"}", "{\"file\":\"\",\"key\":\"k\"}", "{\"file\":\"../a\",\"key\":\"k\"}",
                          "{\"file\":\"a\",\"key\":\"k\",\"metadata\":{\"x\":1}}", "{\"file\":\"a\",\"key\":\"k\",\"attempts\":-1}",
                          "{\"file\":\"a\",\"key\":\"k\",\"queued_unix_ns\":\"x\"}", "{\"file\":\"a\",\"key\":7}"})
    EXPECT_FALSE(ParseManifest(bad, &err)) << bad;
}

TEST(Manifest, WrittenWholeAndListedOldestFirst) {
  char tmpl[] = "/tmp/gotraced-manifest-test.XXXXXX";
  ASSERT_TRUE(mkdtemp(tmpl));
  const std::string dir = tmpl;
  std::string err;
  ManifestEntry a{"a.trace", "k/a", {}, 200, "", 0, ""}, b{"b.trace", "k/b", {}, 100, "", 0, ""};
  ASSERT_TRUE(WriteManifest(dir, a, &err)) << err;
  ASSERT_TRUE(WriteManifest(dir, b, &err)) << err;
  std::ofstream(dir + "/c.trace.upload.json") << "{broken";
  EXPECT_TRUE(IsManifestName("a.trace.upload.json"));
  EXPECT_FALSE(IsManifestName("a.trace"));
  std::vector<std::string> broken;
  auto all = ListManifests(dir, &broken);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].file, "b.trace");
  EXPECT_EQ(all[1].file, "a.trace");
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_NE(broken[0].find("c.trace.upload.json"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/a.trace.upload.json.partial"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gotraced::upload
