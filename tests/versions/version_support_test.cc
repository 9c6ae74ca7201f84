#include <gtest/gtest.h>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/legacy_block_reasons.h"
#include "daemon/probes/version_support.h"

namespace gotraced {
namespace {

using probes::ClassifyGoVersion;
using probes::VersionSupport;

TEST(VersionSupport, TestedRangeIsKnown) {
  for (const char *v : {"go1.19.8", "go1.21.13", "go1.22.12", "go1.23.4", "go1.24.1", "go1.26.0", "go1.27.3"}) {
    auto r = ClassifyGoVersion(gobin::GoVersion::Parse(v));
    EXPECT_EQ(r.support, VersionSupport::kKnown) << v << ": " << r.why;
    EXPECT_TRUE(r.why.empty()) << v;
  }
}

TEST(VersionSupport, FutureAndOlderRegisterAbiAreUntested) {
  for (const char *v : {"go1.28.0", "go1.30rc1", "go1.17.13", "go1.18.10"}) {
    auto r = ClassifyGoVersion(gobin::GoVersion::Parse(v));
    EXPECT_EQ(r.support, VersionSupport::kUntested) << v;
    // The warning names the version and the tested range.
    EXPECT_NE(r.why.find(std::string(v).substr(0, 6)), std::string::npos) << r.why;
    EXPECT_NE(r.why.find("1.19 to 1.27"), std::string::npos) << r.why;
  }
}

TEST(VersionSupport, StackAbiAndNonGo1AreRefusedWithAReason) {
  auto r = ClassifyGoVersion(gobin::GoVersion::Parse("go1.16.15"));
  EXPECT_EQ(r.support, VersionSupport::kUnsupported);
  EXPECT_NE(r.why.find("Go 1.16 is not supported"), std::string::npos) << r.why;
  EXPECT_NE(r.why.find("register ABI"), std::string::npos) << r.why;
  r = ClassifyGoVersion(gobin::GoVersion::Parse("go2.0.0"));
  EXPECT_EQ(r.support, VersionSupport::kUnsupported);
  EXPECT_NE(r.why.find("go2.0.0"), std::string::npos) << r.why;
  r = ClassifyGoVersion(gobin::GoVersion::Parse("devel +abcdef"));
  EXPECT_EQ(r.support, VersionSupport::kUnsupported);
  EXPECT_NE(r.why.find("unknown Go version"), std::string::npos) << r.why;
}

TEST(LegacyBlockReasons, MatchGoParserConversion) {
  // internal/trace/tracev1.go (go1.26) strings for the legacy event types.
  auto s = gobin::LegacyBlockReasonStrings(gobin::GoVersion::Parse("go1.21.13"));
  ASSERT_EQ(s.size(), 50u);
  EXPECT_EQ(s[16], "forever");
  EXPECT_EQ(s[19], "sleep");
  EXPECT_EQ(s[20], "");
  EXPECT_EQ(s[22], "chan send");
  EXPECT_EQ(s[23], "chan receive");
  EXPECT_EQ(s[24], "select");
  EXPECT_EQ(s[25], "sync");
  EXPECT_EQ(s[26], "sync.(*Cond).Wait");
  EXPECT_EQ(s[27], "network");
  EXPECT_EQ(s[42], "GC mark assist wait for work");
  EXPECT_EQ(s[13], "unspecified");  // GoCreate never reaches gopark
  EXPECT_EQ(gobin::LegacyBlockReasonStrings(gobin::GoVersion::Parse("go1.19.8")), s);
  // 1.22+ have runtime.traceBlockReasonStrings: no legacy table.
  EXPECT_TRUE(gobin::LegacyBlockReasonStrings(gobin::GoVersion::Parse("go1.22.0")).empty());
}

}  // namespace
}  // namespace gotraced
