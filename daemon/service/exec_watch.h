// ExecWatcher: notifications of process starts (exec) and ends from the kernel, through
// bpf/exec_watch.bpf.c on the sched_process_exec / sched_process_exit tracepoints and a
// BPF ring buffer. Cheap (one record per exec/exit on the machine) and immediate, so a
// matching process is attached within milliseconds of starting. The service also
// rescans /proc periodically, which covers records lost to a full ring.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gotraced::service {

struct ProcEvent {
  enum class Kind { kExec, kExit } kind = Kind::kExec;
  pid_t pid = 0;
  std::uint64_t ts_ns = 0;
};

class ExecWatcher {
 public:
  ExecWatcher();
  ~ExecWatcher();
  ExecWatcher(const ExecWatcher &) = delete;
  ExecWatcher &operator=(const ExecWatcher &) = delete;

  // Loads and attaches the BPF program. On failure (no privilege, no tracefs ...) returns
  // false with a message; the caller then relies on rescans.
  bool Start(std::string *error);
  // Waits up to timeout_ms for notifications and appends what arrived.
  void Poll(int timeout_ms, std::vector<ProcEvent> *out);
  // Records the BPF side could not submit (ring full) since Start.
  std::uint64_t lost() const;
  bool running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gotraced::service
