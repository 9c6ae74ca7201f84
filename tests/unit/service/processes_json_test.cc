// GET /processes's text (processes_json.h): one process per line for the shell readers of
// tests/suites/60-serve.sh and 65-faults.sh, one JSON document for everyone else, and
// names and paths that are not UTF-8 (any bytes on Linux) written as U+FFFD.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "daemon/service/processes_json.h"

namespace gotraced::service {
namespace {

std::vector<std::string> Lines(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(ProcessesJson, OneProcessPerLine) {
  const std::string text = ProcessesDocument({{{"pid", 10}, {"exe", "/a"}, {"state", "recording"}},
                                              {{"pid", 11}, {"exe", "/b"}, {"window", {{"seconds", 1.5}}}}},
                                             {{"pid", 3}, {"rss_bytes", 100}});
  const auto lines = Lines(text);
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[0], "{\"processes\":[");
  EXPECT_EQ(lines[1], R"({"pid":10,"exe":"/a","state":"recording"},)");  // keys in the order written
  EXPECT_EQ(lines[2], R"({"pid":11,"exe":"/b","window":{"seconds":1.5}})");
  EXPECT_EQ(lines[3], "],");
  EXPECT_EQ(lines[4], R"("daemon":{"pid":3,"rss_bytes":100}})");
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["processes"].size(), 2u);
  EXPECT_EQ(j["daemon"]["pid"], 3);
}

TEST(ProcessesJson, NoProcesses) {
  const auto j = nlohmann::json::parse(ProcessesDocument({}, {{"pid", 3}}));
  EXPECT_EQ(j["processes"], nlohmann::json::array());
}

// A path or comm with bytes that are not UTF-8 must neither throw out of the dump (nlohmann's
// strict default) nor make the document invalid (the old hand-written escaper passed them
// through): each invalid sequence becomes U+FFFD.
TEST(ProcessesJson, BytesThatAreNotUtf8AreReplaced) {
  const std::string exe = "/srv/app\xff\xfe-\xc3(";  // two stray bytes, a cut 2-byte sequence
  std::string text;
  ASSERT_NO_THROW(text = ProcessesDocument({{{"pid", 1}, {"exe", exe}, {"name", "caf\xc3\xa9"}}}, {{"pid", 2}}));
  const auto j = nlohmann::json::parse(text);  // strict reader: throws on invalid UTF-8
  EXPECT_EQ(j["processes"][0]["exe"], "/srv/app\xEF\xBF\xBD\xEF\xBF\xBD-\xEF\xBF\xBD(");
  EXPECT_EQ(j["processes"][0]["name"], "caf\xc3\xa9");  // valid UTF-8 is kept as is
}

TEST(ProcessesJson, ControlCharactersAreEscaped) {
  const std::string text = ProcessesDocument({{{"pid", 1}, {"error", "a\"b\\c\nd\te\x01"}}}, {{"pid", 2}});
  EXPECT_NE(text.find(R"("error":"a\"b\\c\nd\te\u0001")"), std::string::npos) << text;
  EXPECT_EQ(Lines(text).size(), 4u);  // a newline in a string does not break the layout
}

}  // namespace
}  // namespace gotraced::service
