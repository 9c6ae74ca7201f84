// What serve's exec filter decides (issue 28: serve woke and read /proc for every exec of
// the host). An executable serve can never trace (not a Go program, judged once per file)
// is named to the kernel side of exec notifications (bpf/exec_watch.bpf.c exec_skip), so
// its later execs cost no wake at all; the rest are judged on what is cheap to read first
// (exe, comm), and /proc is read in full only for a process a rule may select.
//
// Never a lost target: the key is the file's identity as the kernel holds it (device,
// inode, change time), taken from the very file that was judged (fstat of the opened
// /proc/PID/exe), so a rewritten binary, another file at the same path or an exec racing
// the look are other keys; a key the kernel spells otherwise (btrfs subvolumes, overlayfs
// on several filesystems) only filters nothing.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "proto/exec_watch.h"

namespace gotraced::service {

// The kernel's key for the file stat describes: st_dev re-encoded as the kernel's dev_t
// (major << 20 | minor), st_ino, st_ctim.
gt_exe_key ExeKeyFromStat(const struct stat &st);
bool SameExeKey(const gt_exe_key &a, const gt_exe_key &b);
struct ExeKeyLess {
  bool operator()(const gt_exe_key &a, const gt_exe_key &b) const;
};

enum class ExeVerdict {
  kGo,       // a Go program: maybe a target
  kNotGo,    // never traceable: not ELF, not x86-64, or ELF without Go's build info / pclntab
  kUnknown,  // could not tell (unreadable, truncated ...): looked at again next time
};
std::string_view ExeVerdictName(ExeVerdict v);

// Judges the open file fd (read through /proc/self/fd, so exactly that file; fd may be
// O_PATH). Cheap for a Go program (.go.buildinfo); a file without it gets gobin's full
// search for a pclntab (gobin's parsers take any bytes: tests/fuzz).
ExeVerdict ClassifyExecutable(int fd);

// The executable of pid, opened once: its key and verdict (cached per key). nullopt when
// /proc/PID/exe cannot be opened (gone, kernel thread, no access).
struct ExeLook {
  gt_exe_key key{};
  ExeVerdict verdict = ExeVerdict::kUnknown;
  bool cached = false;
};
class ExeVerdicts {
 public:
  explicit ExeVerdicts(std::size_t max_entries = 4096) : max_(max_entries) {}
  std::optional<ExeLook> Look(pid_t pid);
  // The same for a path.
  std::optional<ExeLook> LookPath(const std::string &path);
  // The file at path judged only if it is the one `want` names (an exec record's key):
  // nullopt if not, or if it cannot be opened.
  std::optional<ExeLook> LookPathExpecting(const std::string &path, const gt_exe_key &want);
  // The verdict kept for key, if any.
  std::optional<ExeVerdict> Cached(const gt_exe_key &key) const;
  std::size_t size() const { return verdicts_.size(); }

 private:
  std::optional<ExeLook> LookFd(int fd, const gt_exe_key *want);
  std::size_t max_;
  std::map<gt_exe_key, ExeVerdict, ExeKeyLess> verdicts_;  // kUnknown is never kept
};

// Processes a rescan found that no rule selects (or that run no Go program), by pid and
// start time: the next rescans read one file of theirs (stat) instead of seven. Forgotten
// on a reload, after lost exec records, and every `full_every` rescans (a process that
// moves into a watched cgroup or renames itself is found by then).
class RescanMemo {
 public:
  explicit RescanMemo(unsigned full_every = 10) : full_every_(full_every) {}
  // Called at each rescan's start: true when this one must look at everything.
  bool BeginRescan();
  bool Known(pid_t pid, std::uint64_t start_time) const;
  void Remember(pid_t pid, std::uint64_t start_time) { known_[pid] = start_time; }
  void Forget(pid_t pid) { known_.erase(pid); }
  void ForgetAll() { known_.clear(); }
  std::size_t size() const { return known_.size(); }

 private:
  unsigned full_every_;
  unsigned rescans_ = 0;
  std::map<pid_t, std::uint64_t> known_;
};

}  // namespace gotraced::service
