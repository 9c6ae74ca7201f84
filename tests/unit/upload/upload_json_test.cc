// The upload room's JSON (manifest.cc, upload_status.cc) with text that is not UTF-8: an
// S3 error body, an executable's path in the metadata. nlohmann's strict default would
// throw out of the dump (type_error 316): through daemon/json/json_text.h each bad byte
// is U+FFFD and the document reads back (GET /processes parses the status into its own).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon/upload/manifest.h"
#include "daemon/upload/upload_status.h"

namespace gotraced::upload {
namespace {

constexpr const char *kBad = "/srv/app\xff\xfe";
constexpr const char *kReplaced = "/srv/app\xEF\xBF\xBD\xEF\xBF\xBD";

TEST(UploadJson, ManifestWithBytesThatAreNotUtf8) {
  ManifestEntry e;
  e.file = "api-1-x.before.trace";
  e.key = "g/n/d/x.before.trace";
  e.metadata = {{"exe", kBad}};
  e.last_error = std::string("500 InternalError: ") + kBad;
  std::string text, err;
  ASSERT_NO_THROW(text = ManifestJson(e));
  auto back = ParseManifest(text, &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->metadata.at("exe"), kReplaced);
  EXPECT_EQ(back->last_error, std::string("500 InternalError: ") + kReplaced);
}

TEST(UploadJson, StatusWithBytesThatAreNotUtf8) {
  UploadStats s;
  s.configured = true;
  s.last_error = kBad;
  s.recent_lost = {kBad};
  std::string text;
  ASSERT_NO_THROW(text = UploadStatusJson(s));
  const auto j = nlohmann::json::parse(text);  // strict
  EXPECT_EQ(j["last_error"], kReplaced);
  EXPECT_EQ(j["recent_lost"][0], kReplaced);
  EXPECT_EQ(j["configured"], true);
}

}  // namespace
}  // namespace gotraced::upload
