// Recording over session::Session (the real pipeline: gobin, probes, capture, model,
// encoder).
#include "daemon/service/recording.h"

namespace gotraced::service {

namespace {

class SessionRecording final : public Recording {
 public:
  explicit SessionRecording(const RecordingOptions &o) : session_(Options(o)) {}

  bool Start(std::string *error) override { return session_.Start(error); }
  bool Prepare(std::string *error) override { return session_.Prepare(error); }
  bool Poll(std::chrono::milliseconds timeout) override { return session_.Poll(timeout); }
  bool Stop(std::string *error) override { return session_.Stop(error); }
  void RequestAdvance() override { session_.RequestAdvance(); }
  void Note(std::uint64_t ts, std::string category, std::string text) override {
    session_.Note(ts, std::move(category), std::move(text));
  }
  session::SessionStats Stats() const override { return session_.Stats(); }
  std::string last_error() const override { return session_.last_error(); }

 private:
  static session::SessionOptions Options(const RecordingOptions &o) {
    session::SessionOptions so;
    so.pid = o.pid;
    so.sink = o.sink;
    so.version = o.version;
    so.ring_bytes = o.ring_bytes;
    so.generation_period = o.generation_period;
    so.exe_path = o.exe;
    so.events = SessionEvents(o.events, o.cpu_hz);
    so.level = o.level;
    so.state_sample = o.state_sample;
    so.syscall_min = o.syscall_min;
    so.syscall_sample = o.syscall_sample;
    so.syscall_switch = o.syscall_switch;
    so.self_check = o.self_check;
    so.triggers = o.triggers;
    so.on_trigger = o.on_trigger;
    so.interrupt_fd = o.interrupt_fd;
    return so;
  }
  session::Session session_;
};

}  // namespace

std::unique_ptr<Recording> MakeSessionRecording(const RecordingOptions &o) {
  return std::make_unique<SessionRecording>(o);
}

}  // namespace gotraced::service
