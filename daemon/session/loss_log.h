// Says in the log that records were lost, without a line per generation cut. A ring too
// small for the target's event rate cuts a generation at nearly every drain (~50 ms): a
// 10 s recording of a go1.19 HTTP server at 2,000 requests/s with a 64 KiB ring printed
// 160 warnings, one per cut, burying everything else. The first loss is said at once;
// later ones are added up and said at most once per period, and what is pending when the
// recording ends is said then (the summary gives the total).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace gotraced::session {

class LossLog {
 public:
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(const std::string &)>;
  // `sink` receives each line (spdlog::warn when empty).
  explicit LossLog(Clock::duration period = std::chrono::seconds(10), Sink sink = {});

  // One cut: `refused` records the ring refused, `missing` more missing by their
  // sequence numbers (docs/reliability.md).
  void Note(std::uint64_t refused, std::uint64_t missing, Clock::time_point now);
  // Says what is pending (the recording ends).
  void Flush(Clock::time_point now);

 private:
  void Say(const std::string &line);

  Clock::duration period_;
  Sink sink_;
  bool said_first_ = false;
  Clock::time_point last_said_{};
  std::uint64_t pending_refused_ = 0, pending_missing_ = 0, pending_cuts_ = 0;
};

}  // namespace gotraced::session
