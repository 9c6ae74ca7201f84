// FullRecording and its options: what an escalation records, made now or ahead (standby.h).
#include "daemon/service/standby.h"

#include <fmt/format.h>

#include "daemon/service/service.h"

namespace gotraced::service {

RecordingOptions FullRecordingOptions(const Config &cfg, pid_t pid, const std::string &exe, std::uint32_t events,
                                      std::uint64_t start_time, bool self_check) {
  RecordingOptions ro;
  ro.pid = pid;
  ro.exe = exe;
  ro.version = cfg.trace_version;
  ro.ring_bytes = cfg.ring_bytes;
  ro.generation_period = cfg.generation_period;
  ro.events = events;
  ro.level = session::CaptureLevel::kFull;
  ro.self_check = self_check;
  ro.cpu_hz = cfg.cpu_hz;
  ro.start_time = start_time;
  return ro;
}

std::string FullRecordingKey(const RecordingOptions &o) {
  return fmt::format("{} {} {} {} {} {} {} {}", o.pid, o.start_time, static_cast<int>(o.version), o.ring_bytes,
                     o.generation_period.count(), o.events, o.cpu_hz, o.self_check);
}

FullRecording NewFullRecording(const Config &cfg, const RecordingOptions &o) {
  FullRecording f;
  f.store = std::make_unique<FlightStore>(cfg.memory_bytes / 4);
  // One generation, kept until read: the response streams each one as it ends.
  f.rec = f.store->Create(o.pid, FlightWindow{0.001, 1});
  RecordingOptions ro = o;
  ro.sink = f.rec.get();
  f.recording = cfg.synthetic ? MakeSyntheticRecording(ro) : MakeSessionRecording(ro);
  f.key = FullRecordingKey(o);
  return f;
}

FullRecording TakeFullRecording(const Config &cfg, Target *t, const RecordingOptions &o, bool *ahead) {
  *ahead = false;
  if (t) {
    std::unique_ptr<FullRecording> s;
    {
      std::lock_guard<std::mutex> lock(t->mu);
      if (t->standby && t->standby->key == FullRecordingKey(o)) s = std::move(t->standby);
    }
    if (s) {
      *ahead = true;
      return std::move(*s);
    }
  }
  return NewFullRecording(cfg, o);
}

}  // namespace gotraced::service
