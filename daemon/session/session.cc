// Session implementation. See session.h.
#include "daemon/session/session.h"

#include <cctype>
#include <mutex>
#include <string>
#include <thread>

namespace gotraced::session {

std::optional<TraceVersion> ParseTraceVersion(std::string_view text) {
  std::string t;
  for (char c : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (t == "auto" || t.empty()) return TraceVersion::kAuto;
  if (t.rfind("go", 0) == 0) t = t.substr(2);
  if (t.rfind("1.", 0) == 0) t = t.substr(2);
  if (t == "22") return TraceVersion::kGo122;
  if (t == "23" || t == "24") return TraceVersion::kGo123;
  if (t == "25") return TraceVersion::kGo125;
  if (t == "26" || t == "27") return TraceVersion::kGo126;
  return std::nullopt;
}

std::string_view TraceVersionName(TraceVersion v) {
  switch (v) {
    case TraceVersion::kAuto: return "auto";
    case TraceVersion::kGo122: return "go1.22";
    case TraceVersion::kGo123: return "go1.23";
    case TraceVersion::kGo125: return "go1.25";
    case TraceVersion::kGo126: return "go1.26";
  }
  return "?";
}

// Placeholder until the pipeline lands (model/, capture/, probes/, procmem/).
struct Session::Impl {
  SessionOptions options;
  mutable std::mutex mu;
  SessionStats stats;
  std::string last_error;
  bool started = false;
  bool stopped = false;
};

Session::Session(SessionOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Session::~Session() {
  if (impl_ && impl_->started && !impl_->stopped) Stop();
}

bool Session::Start(std::string *error) {
  if (error) *error = "session: not implemented yet";
  return false;
}

bool Session::Poll(std::chrono::milliseconds timeout) {
  std::this_thread::sleep_for(timeout);
  return false;
}

void Session::Run(const std::atomic<bool> &stop, std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (!stop.load()) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) break;
    if (!Poll()) break;
  }
}

bool Session::Stop(std::string *) {
  impl_->stopped = true;
  return true;
}

SessionStats Session::Stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

std::string Session::last_error() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_error;
}

pid_t Session::pid() const { return impl_->options.pid; }

}  // namespace gotraced::session
