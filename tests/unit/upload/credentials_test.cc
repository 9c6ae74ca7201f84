#include "daemon/upload/credentials.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace gotraced::upload {
namespace {

class CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gotraced-creds-test.XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string &name, const std::string &text, mode_t mode) {
    const std::string p = dir_ + "/" + name;
    std::ofstream(p) << text;
    chmod(p.c_str(), mode);
    return p;
  }
  std::string dir_;
};

TEST_F(CredentialsTest, FromFilesTrimmed) {
  std::string err;
  auto c = LoadCredentials({Write("ak", "AKIAEXAMPLE\n", 0600), Write("sk", "  s3cr3t/KEY \n", 0400), ""}, &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->access_key, "AKIAEXAMPLE");
  EXPECT_EQ(c->secret_key, "s3cr3t/KEY");
  EXPECT_EQ(c->session_token, "");
}

TEST_F(CredentialsTest, AFileOthersCanReadIsRefusedWithoutItsContent) {
  std::string err;
  EXPECT_FALSE(LoadCredentials({Write("ak", "AKIAEXAMPLE", 0600), Write("sk", "TOPSECRETVALUE", 0644), ""}, &err));
  EXPECT_NE(err.find("readable or writable by other users"), std::string::npos) << err;
  EXPECT_NE(err.find("0644"), std::string::npos) << err;
  EXPECT_EQ(err.find("TOPSECRETVALUE"), std::string::npos) << err;
  EXPECT_FALSE(LoadCredentials({Write("ak2", "AKIAEXAMPLE", 0640), Write("sk2", "x", 0600), ""}, &err));
}

TEST_F(CredentialsTest, FromTheEnvironment) {
  setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  setenv("AWS_SESSION_TOKEN", "envtoken", 1);
  std::string err;
  auto c = LoadCredentials({}, &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->access_key, "AKIAENV");
  EXPECT_EQ(c->session_token, "envtoken");
  unsetenv("AWS_ACCESS_KEY_ID");
  EXPECT_FALSE(LoadCredentials({}, &err));
  EXPECT_NE(err.find("no S3 credentials"), std::string::npos);
}

TEST_F(CredentialsTest, MissingFileNamed) {
  std::string err;
  EXPECT_FALSE(LoadCredentials({dir_ + "/nope", dir_ + "/nope2", ""}, &err));
  EXPECT_NE(err.find("nope"), std::string::npos);
}

TEST(Credentials, Redact) {
  Credentials c{"AKIAEXAMPLE", "s3cr3tKEY", "tok3n"};
  EXPECT_EQ(c.Redact("key AKIAEXAMPLE secret s3cr3tKEY token tok3n"), "key [redacted] secret [redacted] token [redacted]");
  EXPECT_EQ(c.Redact("nothing here"), "nothing here");
}

}  // namespace
}  // namespace gotraced::upload
