// Serve's exec filter: keys, verdicts, the rescan memo. See exe_filter.h.
#include "daemon/service/exe_filter.h"

#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/go_binary.h"

namespace gotraced::service {

gt_exe_key ExeKeyFromStat(const struct stat &st) {
  gt_exe_key k{};
  // The kernel's dev_t is MKDEV(major, minor) = major << MINORBITS (20) | minor; stat
  // hands out new_encode_dev() of it, which major()/minor() take apart.
  k.dev = (static_cast<std::uint64_t>(major(st.st_dev)) << 20) | minor(st.st_dev);
  k.ino = st.st_ino;
  k.ctime_sec = st.st_ctim.tv_sec;
  k.ctime_nsec = static_cast<std::uint32_t>(st.st_ctim.tv_nsec);
  return k;
}

bool SameExeKey(const gt_exe_key &a, const gt_exe_key &b) {
  return a.dev == b.dev && a.ino == b.ino && a.ctime_sec == b.ctime_sec && a.ctime_nsec == b.ctime_nsec;
}

bool ExeKeyLess::operator()(const gt_exe_key &a, const gt_exe_key &b) const {
  return std::tie(a.dev, a.ino, a.ctime_sec, a.ctime_nsec) < std::tie(b.dev, b.ino, b.ctime_sec, b.ctime_nsec);
}

std::string_view ExeVerdictName(ExeVerdict v) {
  switch (v) {
    case ExeVerdict::kGo: return "go";
    case ExeVerdict::kNotGo: return "not go";
    case ExeVerdict::kUnknown: return "unknown";
  }
  return "?";
}

ExeVerdict ClassifyExecutable(int fd) {
  // Reopened for reading through the fd's link: exactly the file fd is (fd may be O_PATH).
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto elf = gobin::ElfFile::Open(path);
  if (!elf) {
    // What the ELF reader refuses for good; open/mmap/truncation errors may pass.
    const std::string &e = elf.error();
    if (e == "not an ELF file" || e.rfind("not 64-bit x86-64", 0) == 0) return ExeVerdict::kNotGo;
    return ExeVerdict::kUnknown;
  }
  // Every Go program since 1.13 has its build info: one section or segment read.
  if (gobin::ReadBuildInfo(**elf)) return ExeVerdict::kGo;
  // Else the test Attach makes (session: GoBinary::Open), pclntab search included.
  auto bin = gobin::GoBinary::Open(path);
  if (bin) return ExeVerdict::kGo;
  if (bin.error().rfind("not a Go binary", 0) == 0) return ExeVerdict::kNotGo;
  return ExeVerdict::kUnknown;
}

std::optional<ExeLook> ExeVerdicts::LookFd(int fd, const gt_exe_key *want) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  ExeLook look;
  look.key = ExeKeyFromStat(st);
  if (want && !SameExeKey(look.key, *want)) return std::nullopt;
  if (auto it = verdicts_.find(look.key); it != verdicts_.end()) {
    look.verdict = it->second;
    look.cached = true;
    return look;
  }
  look.verdict = ClassifyExecutable(fd);
  if (look.verdict != ExeVerdict::kUnknown) {
    if (verdicts_.size() >= max_) verdicts_.clear();  // rare: judged again on their next exec
    verdicts_.emplace(look.key, look.verdict);
  }
  return look;
}

// O_PATH: nothing is opened for reading until fstat has said it is a regular file (and,
// for a record's path, the file the record names). The path can be anyone's: a user may
// exec a file and put a device node or a FIFO at its path before serve looks, and opening
// some devices does something (a watchdog starts counting).
std::optional<ExeLook> ExeVerdicts::LookPath(const std::string &path) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<ExeLook> look = LookFd(fd, nullptr);
  ::close(fd);
  return look;
}

std::optional<ExeLook> ExeVerdicts::LookPathExpecting(const std::string &path, const gt_exe_key &want) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<ExeLook> look = LookFd(fd, &want);
  ::close(fd);
  return look;
}

std::optional<ExeVerdict> ExeVerdicts::Cached(const gt_exe_key &key) const {
  auto it = verdicts_.find(key);
  if (it == verdicts_.end()) return std::nullopt;
  return it->second;
}

std::optional<ExeLook> ExeVerdicts::Look(pid_t pid) {
  // The magic link opens the file the process runs, in whatever mount namespace it is.
  return LookPath("/proc/" + std::to_string(pid) + "/exe");
}

bool RescanMemo::BeginRescan() {
  if (full_every_ == 0 || rescans_++ % full_every_ == 0) {
    known_.clear();  // also drops the pids that are gone
    return true;
  }
  return false;
}

bool RescanMemo::Known(pid_t pid, std::uint64_t start_time) const {
  auto it = known_.find(pid);
  return it != known_.end() && it->second == start_time;
}

}  // namespace gotraced::service
