#pragma once
// The live one-line status shown on a terminal while recording, and the summary line
// printed at the end. Both go to stderr, so stdout stays clean for scripts.
#include <chrono>
#include <string>

#include "daemon/session/session.h"

namespace gotraced::cli {

class StatusLine {
 public:
  explicit StatusLine(bool enabled) : enabled_(enabled) {}
  // Redraws at most every 250 ms.
  void Update(pid_t pid, const session::SessionStats &s, std::chrono::steady_clock::duration elapsed);
  // Erases the line so the next output starts clean.
  void Clear();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// `where`: the process's container and pod (container::Describe), "" for none.
std::string FormatSummary(const std::string &out, pid_t pid, const session::SessionStats &s,
                          std::chrono::steady_clock::duration elapsed, const std::string &where = {});

}  // namespace gotraced::cli
