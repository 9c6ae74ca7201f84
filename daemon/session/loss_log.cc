#include "daemon/session/loss_log.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace gotraced::session {

LossLog::LossLog(Clock::duration period, Sink sink) : period_(period), sink_(std::move(sink)) {}

void LossLog::Say(const std::string &line) {
  if (sink_) sink_(line);
  else spdlog::warn("{}", line);
}

void LossLog::Note(std::uint64_t refused, std::uint64_t missing, Clock::time_point now) {
  if (refused == 0 && missing == 0) return;
  if (!said_first_) {
    said_first_ = true;
    last_said_ = now;
    std::string line = fmt::format("gotraced: {} records lost (the ring buffer was full); the generation is cut",
                                   refused);
    if (refused == 0) line = fmt::format("gotraced: {} records missing by their sequence numbers; the generation is cut",
                                         missing);
    else if (missing) line += fmt::format(" ({} more records missing by their sequence numbers)", missing);
    Say(line + fmt::format("; further losses are added up and said every {} s",
                           std::chrono::duration_cast<std::chrono::seconds>(period_).count()));
    return;
  }
  pending_refused_ += refused;
  pending_missing_ += missing;
  pending_cuts_++;
  if (now - last_said_ >= period_) Flush(now);
}

void LossLog::Flush(Clock::time_point now) {
  if (pending_cuts_ == 0) return;
  const double s = std::chrono::duration<double>(now - last_said_).count();
  std::string what = fmt::format("{} more records lost", pending_refused_ + pending_missing_);
  if (pending_missing_) what += fmt::format(" ({} of them missing by their sequence numbers)", pending_missing_);
  Say(fmt::format("gotraced: {} in {} generation cuts over the last {:.1f} s (the ring buffer was full)", what,
                  pending_cuts_, s));
  pending_refused_ = pending_missing_ = pending_cuts_ = 0;
  last_said_ = now;
}

}  // namespace gotraced::session
