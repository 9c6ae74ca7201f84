// session/loss_log.h: one line for the first loss, then sums at most once per period,
// and the lines add up to every record lost.
#include "daemon/session/loss_log.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace gotraced::session {
namespace {

using std::chrono::milliseconds;

struct Lines {
  std::vector<std::string> said;
  LossLog::Sink sink() {
    return [this](const std::string &l) { said.push_back(l); };
  }
  // What a reader adds up: "N records lost", "(M more records missing ...)", "N more records lost".
  std::uint64_t Total() const {
    std::uint64_t n = 0;
    const std::regex re("([0-9]+) (more )?records (lost|missing by their sequence numbers)");
    for (const auto &l : said)
      for (std::sregex_iterator it(l.begin(), l.end(), re), end; it != end; ++it) n += std::stoull((*it)[1]);
    return n;
  }
};

TEST(LossLog, TheFirstLossIsSaidAtOnceTheRestAtMostOncePerPeriod) {
  Lines lines;
  LossLog log(milliseconds(10000), lines.sink());
  const auto t0 = LossLog::Clock::time_point{} + milliseconds(1000);
  log.Note(5214, 0, t0);
  ASSERT_EQ(lines.said.size(), 1u);
  EXPECT_NE(lines.said[0].find("5214 records lost (the ring buffer was full); the generation is cut"), std::string::npos)
      << lines.said[0];
  // A cut every 50 ms for 20 s: two more lines, not 400.
  std::uint64_t sum = 5214;
  for (int i = 1; i <= 400; ++i) {
    log.Note(100, i % 10 == 0 ? 3 : 0, t0 + milliseconds(50 * i));
    sum += 100 + (i % 10 == 0 ? 3 : 0);
  }
  EXPECT_EQ(lines.said.size(), 3u);
  log.Flush(t0 + milliseconds(20001));
  EXPECT_LE(lines.said.size(), 4u);
  EXPECT_EQ(lines.Total(), sum);
  EXPECT_NE(lines.said[1].find("generation cuts over the last 10.0 s"), std::string::npos) << lines.said[1];
}

TEST(LossLog, MissingOnlyAndNothingPending) {
  Lines lines;
  LossLog log(milliseconds(10000), lines.sink());
  const auto t0 = LossLog::Clock::time_point{};
  log.Note(0, 0, t0);  // no loss: nothing said
  EXPECT_TRUE(lines.said.empty());
  log.Note(0, 7, t0);
  ASSERT_EQ(lines.said.size(), 1u);
  EXPECT_NE(lines.said[0].find("7 records missing by their sequence numbers"), std::string::npos) << lines.said[0];
  log.Flush(t0 + milliseconds(1));  // nothing pending: nothing said
  EXPECT_EQ(lines.said.size(), 1u);
  log.Note(2, 1, t0 + milliseconds(5));
  log.Flush(t0 + milliseconds(6));
  ASSERT_EQ(lines.said.size(), 2u);
  EXPECT_EQ(lines.Total(), 10u);
}

}  // namespace
}  // namespace gotraced::session
