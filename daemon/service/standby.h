// Standby: a full-level recording of a watched process made ahead of need, so that
// switching the process to full detail (dump --seconds, /trace?seconds=) is an attach
// and a snapshot (~20 ms) rather than a plan, a BPF load and a verification too (~130 ms
// here: each program is verified on its own, 8-13 ms apiece).
//
// Service::RunTarget keeps one per target recorded below level full (loaded, verified,
// not attached: its programs run nowhere and it writes nothing); an escalation takes it,
// and the target's thread makes the next one. What it holds while it waits: the BPF
// programs and maps of one recording, of which the ring buffer (ring_mb) is the kernel
// memory that counts (at most kStandbyRingBytes of them in all); none of it is in the
// daemon's RSS until it is attached.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "daemon/service/config.h"
#include "daemon/service/flight_recorder.h"
#include "daemon/service/recording.h"

namespace gotraced::service {

struct Target;

// The most ring buffer the standbys of all processes hold together (8 processes at the
// default ring_mb of 8).
inline constexpr std::size_t kStandbyRingBytes = std::size_t{64} << 20;

// How long a process is recorded before its standby is loaded (Service::RunTarget).
inline constexpr std::chrono::seconds kStandbyDelay{5};

// One full-level recording of a process and the one-generation recorder it writes into
// (the response of a /trace request is read from it).
struct FullRecording {
  std::unique_ptr<FlightStore> store;
  std::shared_ptr<FlightRecorder> rec;
  std::unique_ptr<Recording> recording;
  std::string key;  // FullRecordingKey of its options
};

// The options of a full-level recording of `pid` with the event classes `events` under
// `cfg` (self_check: off when the process's always-on recording already passed it).
RecordingOptions FullRecordingOptions(const Config &cfg, pid_t pid, const std::string &exe, std::uint32_t events,
                                      std::uint64_t start_time, bool self_check);
// What a standby must agree with to stand in for a recording made now (a reload may
// change the trace version, the ring or the events).
std::string FullRecordingKey(const RecordingOptions &o);
// A new full-level recording, not started.
FullRecording NewFullRecording(const Config &cfg, const RecordingOptions &o);
// `t`'s standby when it was made for options `o` (then *ahead is true and the target has
// none until its thread makes the next), else a new one. `t` may be null (a process no
// rule watches).
FullRecording TakeFullRecording(const Config &cfg, Target *t, const RecordingOptions &o, bool *ahead);

}  // namespace gotraced::service
