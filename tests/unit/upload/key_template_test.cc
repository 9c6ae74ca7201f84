#include "daemon/upload/key_template.h"

#include <gtest/gtest.h>

#include "daemon/upload/upload_config.h"

namespace gotraced::upload {
namespace {

TraceFacts Facts() {
  TraceFacts f;
  f.node = "node-7";
  f.exe = "/srv/bin/api server";
  f.pid = 4242;
  f.trigger = "stw";
  f.part = "before";
  f.at_unix_ns = 1796559194015000000;  // 2026-12-06T12:13:14.015Z
  f.at_mono_ns = 123456789;
  f.go_version = "go1.26.1";
  f.window_seconds = 4;
  return f;
}

TEST(KeyTemplate, DefaultGroupsByNodeAndDay) {
  EXPECT_EQ(ExpandKey(kDefaultKeyTemplate, "gotraced", Facts()),
            "gotraced/node-7/2026-12-06/20261206T121314.015Z-api_server-4242-stw.before.trace");
}

TEST(KeyTemplate, EmptyPrefixAndPartTakeTheirSeparator) {
  TraceFacts f = Facts();
  f.part.clear();
  EXPECT_EQ(ExpandKey(kDefaultKeyTemplate, "", f), "node-7/2026-12-06/20261206T121314.015Z-api_server-4242-stw.trace");
  EXPECT_EQ(ExpandKey(kDefaultKeyTemplate, "a/b c/", Facts()).substr(0, 11), "a/b_c/node-");
}

TEST(KeyTemplate, ValuesCannotEscapeTheirSegment) {
  TraceFacts f = Facts();
  f.node = "../x";
  f.trigger = "a/b";
  EXPECT_EQ(ExpandKey("{node}/{trigger}", "", f), ".._x/a_b");
}

TEST(KeyTemplate, Problems) {
  EXPECT_FALSE(KeyTemplateProblem(kDefaultKeyTemplate));
  EXPECT_TRUE(KeyTemplateProblem(""));
  EXPECT_TRUE(KeyTemplateProblem("{host}/x"));
  EXPECT_TRUE(KeyTemplateProblem("{node"));
  EXPECT_TRUE(KeyTemplateProblem("node}"));
}

TEST(KeyTemplate, MetadataIsAsciiAndComplete) {
  TraceFacts f = Facts();
  f.exe = "/srv/bin/caf\xc3\xa9";
  f.build_id = "abc/def";
  f.trace_format = "go1.26";
  f.container = "c1";
  f.pod = "p1";
  auto m = Metadata(f, "0.1.0");
  EXPECT_EQ(m["gotraced-version"], "0.1.0");
  EXPECT_EQ(m["node"], "node-7");
  EXPECT_EQ(m["pid"], "4242");
  EXPECT_EQ(m["exe"], "/srv/bin/caf??");
  EXPECT_EQ(m["go-version"], "go1.26.1");
  EXPECT_EQ(m["build-id"], "abc/def");
  EXPECT_EQ(m["trace-format"], "go1.26");
  EXPECT_EQ(m["trigger"], "stw");
  EXPECT_EQ(m["part"], "before");
  EXPECT_EQ(m["at-ns"], "123456789");
  EXPECT_EQ(m["at-utc"], "2026-12-06T12:13:14.015Z");
  EXPECT_EQ(m["window-seconds"], "4.000");
  EXPECT_EQ(m["container"], "c1");
  EXPECT_EQ(m["pod"], "p1");
}

}  // namespace
}  // namespace gotraced::upload
