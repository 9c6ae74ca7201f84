// The clock of the trace: CLOCK_MONOTONIC in nanoseconds, which is what the BPF side's
// bpf_ktime_get_ns returns, so a time read here compares with a record's timestamp.
// Header-only: the snapshot, the ring consumer and the session all read it.
#pragma once

#include <time.h>

#include <cstdint>

namespace gotraced::procmem {

inline std::uint64_t MonoNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace gotraced::procmem
