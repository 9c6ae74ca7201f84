// Recording: what the service drives for one target — a session::Session in production,
// or a synthetic scheduler (tests, and machines where BPF capture cannot run) that feeds
// the real model and encoder with made-up records. Both write whole generations into
// the given sink (the target's flight recorder).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "daemon/service/config.h"
#include "daemon/session/session.h"
#include "encoder/sink.h"

namespace gotraced::service {

struct RecordingOptions {
  pid_t pid = 0;
  std::string exe;
  encoder::Sink *sink = nullptr;
  session::TraceVersion version = session::TraceVersion::kAuto;
  std::size_t ring_bytes = std::size_t{8} << 20;
  std::chrono::milliseconds generation_period{1000};
  std::uint32_t events = kEventDefault;  // EventClass bits (config.h), fixed for the recording's life
  std::uint32_t cpu_hz = 100;        // when events has kEventCpu
  std::chrono::nanoseconds syscall_min = std::chrono::milliseconds(1);  // level low ([flight] syscall_min_ms)
  bool syscall_sample = false;  // level low: syscalls by sampling ([flight] syscalls_by)
  bool syscall_switch = true;   // level low: syscalls from sched_switch ([flight] syscalls_by)
  session::CaptureLevel level = session::CaptureLevel::kFull;  // what is trapped for (capture_level.h)
  std::chrono::milliseconds state_sample = session::kDefaultStateSample;  // SessionOptions::state_sample
  bool self_check = true;  // SessionOptions::self_check (off for escalations)
  session::TriggerThresholds triggers;                      // SessionOptions::triggers
  std::function<void(const session::TriggerHit &)> on_trigger;  // SessionOptions::on_trigger
  std::uint64_t start_time = 0;  // the target's /proc start time (exit detection)
  int interrupt_fd = -1;  // SessionOptions::interrupt_fd (Target::wake)
};

class Recording {
 public:
  virtual ~Recording() = default;
  virtual bool Start(std::string *error) = 0;
  // Start's slow half ahead of time (session::Session::Prepare: plan, BPF load and
  // verification; nothing attached): Start then only attaches. Optional.
  virtual bool Prepare(std::string *) { return true; }
  // False when the recording is over (target gone or fatal error).
  virtual bool Poll(std::chrono::milliseconds timeout) = 0;
  virtual bool Stop(std::string *error) = 0;
  // Ends the generation in progress at the next Poll, like the forced advance of
  // runtime/trace's FlightRecorder.WriteTo, so a dump holds what happened up to now
  // without waiting for the period to run out.
  virtual void RequestAdvance() = 0;
  // A log at `ts` in the trace (session::Session::Note: level low only). Poll's thread.
  virtual void Note(std::uint64_t /*ts*/, std::string /*category*/, std::string /*text*/) {}
  virtual session::SessionStats Stats() const = 0;
  virtual std::string last_error() const = 0;
};

std::unique_ptr<Recording> MakeSessionRecording(const RecordingOptions &o);
std::unique_ptr<Recording> MakeSyntheticRecording(const RecordingOptions &o);

}  // namespace gotraced::service
