// The constexpr event table against Go's own table (internal/trace/tracev2/events.go and
// version/version.go of the installed Go), so a drift shows up as a test failure.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "encoder/event_table.h"
#include "tests/unit/common/go_toolchain.h"

namespace gotraced::encoder {
namespace {

std::string ReadFile(const char *path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> SplitQuoted(const std::string &s) {
  std::vector<std::string> out;
  std::regex q("\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), q); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

std::uint8_t MaskOf(const std::string &list) {
  std::uint8_t m = 0;
  std::regex n("[0-9]+");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), n); it != std::sregex_iterator(); ++it)
    m |= static_cast<std::uint8_t>(1u << std::stoi(it->str()));
  return m;
}

TEST(EventTable, NumbersAreTheWireNumbers) {
  EXPECT_EQ(static_cast<int>(EventType::kProcsChange), 9);
  EXPECT_EQ(static_cast<int>(EventType::kGoStatus), 25);
  EXPECT_EQ(static_cast<int>(EventType::kUserLog), 44);
  EXPECT_EQ(static_cast<int>(EventType::kGoStatusStack), 48);
  EXPECT_EQ(static_cast<int>(EventType::kEndOfGeneration), 52);
  for (int i = 1; i < kNumEventTypes; ++i) {
    EXPECT_TRUE(kEventSpecs[i].exists) << i;
    EXPECT_EQ(static_cast<int>(kEventSpecs[i].type), i);
  }
  EXPECT_FALSE(kEventSpecs[0].exists);
}

TEST(EventTable, VersionPrefixesMatchVersionGo) {
  // internal/trace/version/version.go: Go122 = Specs()[:EvUserLog+1], Go123 =
  // [:EvExperimentalBatch+1], Go125 = [:EvClockSnapshot+1], Go126 = all.
  auto last = [](Version v) {
    int n = 0;
    for (int i = 1; i < kNumEventTypes; ++i)
      if (VersionHas(v, static_cast<EventType>(i))) n = i;
    return n;
  };
  EXPECT_EQ(last(Version::kGo122), 44);
  EXPECT_EQ(last(Version::kGo123), 49);
  EXPECT_EQ(last(Version::kGo125), 51);
  EXPECT_EQ(last(Version::kGo126), 52);
  for (Version v : kAllVersions)
    for (int i = 1; i <= last(v); ++i) EXPECT_TRUE(VersionHas(v, static_cast<EventType>(i))) << i;
}

TEST(EventTable, ArgKindsFromNameSuffix) {
  const auto &s = SpecOf(EventType::kUserTaskBegin);
  EXPECT_EQ(s.Kind(0), ArgKind::kTime);
  EXPECT_EQ(s.Kind(1), ArgKind::kTask);
  EXPECT_EQ(s.Kind(2), ArgKind::kTask);
  EXPECT_EQ(s.Kind(3), ArgKind::kString);
  EXPECT_EQ(s.Kind(4), ArgKind::kStack);
  EXPECT_EQ(SpecOf(EventType::kGoStatus).Kind(3), ArgKind::kGStatus);
  EXPECT_EQ(SpecOf(EventType::kProcStatus).Kind(2), ArgKind::kPStatus);
  EXPECT_EQ(SpecOf(EventType::kProcSteal).Kind(3), ArgKind::kM);
  EXPECT_EQ(SpecOf(EventType::kGoCreate).Kind(1), ArgKind::kG);
  EXPECT_EQ(SpecOf(EventType::kHeapAlloc).Kind(1), ArgKind::kValue);
  // Every string/stack mask bit sits on an argument whose name says so.
  for (const auto &spec : kEventSpecs)
    for (int i = 0; i < spec.nargs; ++i) {
      if (spec.IsStringArg(i)) {
        EXPECT_EQ(spec.Kind(i), ArgKind::kString) << spec.name;
      }
      if (spec.IsStackArg(i)) {
        EXPECT_EQ(spec.Kind(i), ArgKind::kStack) << spec.name;
      }
    }
}

TEST(EventTable, MatchesGoSourceTable) {
  // The machine's Go 1.26 (found as go_for finds it, not by one machine's path).
  const std::string root = testutil::GoRoot("go1.26");
  const std::string events = root + "/src/internal/trace/tracev2/events.go";
  std::string src = root.empty() ? "" : ReadFile(events.c_str());
  if (src.empty()) GTEST_SKIP() << "no Go 1.26 source at " << (root.empty() ? "(no go1.26 installed)" : events);
  // Event numbers: the iota list from EvNone to NumEvents.
  std::map<std::string, int> number;
  {
    auto from = src.find("EvNone EventType = iota");
    auto to = src.find("NumEvents", from);
    ASSERT_NE(from, std::string::npos);
    std::istringstream lines(src.substr(from, to - from));
    std::string line;
    int n = 0;
    std::regex ident("^\\s*(Ev[A-Za-z]+)");
    std::smatch m;
    while (std::getline(lines, line))
      if (std::regex_search(line, m, ident)) number[m[1]] = n++;
  }
  EXPECT_EQ(number.size(), static_cast<std::size_t>(kNumEventTypes));
  // Specs: "EvX: { ... }," blocks of the specs table (non-experimental ones).
  auto specs_at = src.find("var specs = [...]EventSpec{");
  ASSERT_NE(specs_at, std::string::npos);
  std::regex block("\\n\\t(Ev[A-Za-z]+): \\{([\\s\\S]*?)\\n\\t\\}");
  int checked = 0;
  std::string tail = src.substr(specs_at);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), block); it != std::sregex_iterator(); ++it) {
    std::string ev = (*it)[1], body = (*it)[2];
    if (!number.count(ev)) continue;  // experimental events (128+) are not in our table
    const EventSpec &s = kEventSpecs[number[ev]];
    std::smatch m;
    ASSERT_TRUE(std::regex_search(body, m, std::regex("Name:\\s*\"([^\"]+)\""))) << ev;
    EXPECT_EQ(s.name, m[1].str()) << ev;
    std::vector<std::string> args;
    if (std::regex_search(body, m, std::regex("Args:\\s*\\[\\]string\\{([^}]*)"))) args = SplitQuoted(m[1]);
    ASSERT_EQ(s.nargs, args.size()) << ev;
    for (std::size_t i = 0; i < args.size(); ++i) EXPECT_EQ(s.args[i], args[i]) << ev;
    std::uint8_t strings = 0, stacks = 0;
    if (std::regex_search(body, m, std::regex("StringIDs:\\s*\\[\\]int\\{([^}]*)"))) strings = MaskOf(m[1]);
    if (std::regex_search(body, m, std::regex("StackIDs:\\s*\\[\\]int\\{([^}]*)"))) stacks = MaskOf(m[1]);
    EXPECT_EQ(s.string_mask, strings) << ev;
    EXPECT_EQ(s.stack_mask, stacks) << ev;
    EXPECT_EQ(s.timed, body.find("IsTimedEvent: true") != std::string::npos) << ev;
    EXPECT_EQ(s.has_data, body.find("HasData:") != std::string::npos) << ev;
    EXPECT_EQ(s.is_stack, body.find("IsStack:") != std::string::npos) << ev;
    std::string start;
    if (std::regex_search(body, m, std::regex("StartEv:\\s*(Ev[A-Za-z]+)"))) start = m[1];
    EXPECT_EQ(static_cast<int>(s.start_event), start.empty() ? 0 : number[start]) << ev;
    ++checked;
  }
  EXPECT_EQ(checked, kNumEventTypes - 1);  // every event but EvNone
}

}  // namespace
}  // namespace gotraced::encoder
