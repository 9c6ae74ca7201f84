// ExecWatcher: notifications of process starts (exec) and ends from the kernel, through
// bpf/exec_watch.bpf.c on the sched_process_exec / sched_process_exit tracepoints and a
// BPF ring buffer. Immediate, so a matching process is attached within milliseconds of
// starting, and cheap: the kernel side sends the exits of the pids named by Watch only,
// and no exec of an executable named by Skip (unless its pid is watched). The service
// also rescans /proc periodically, which covers records lost to a full ring.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proto/exec_watch.h"

namespace gotraced::service {

struct ProcEvent {
  enum class Kind { kExec, kExit } kind = Kind::kExec;
  pid_t pid = 0;
  std::uint64_t ts_ns = 0;
  // kExec: the executable's identity as the kernel holds it (has_exe false when it had
  // none), and the path exec was given (gt_exec_watch_record).
  bool has_exe = false;
  gt_exe_key exe{};
  std::string filename;
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
  // Execs the BPF side did not send because Skip named their executable.
  std::uint64_t filtered() const;
  // The kernel sends every exec and exit of tgid from now on / no longer (only its
  // execs that Skip does not hide). A full map fails silently: an exit then goes
  // unreported, which a later look at /proc notices.
  void Watch(pid_t tgid);
  void Unwatch(pid_t tgid);
  // The kernel stops sending execs of this executable (LRU: the least recently hit
  // entries make room).
  void Skip(const gt_exe_key &key);
  bool running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gotraced::service
