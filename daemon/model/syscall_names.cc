// The syscalls a goroutine makes through package syscall / x/sys/unix and the runtime's
// own goroutine syscalls (syscall_names.h). Names are the kernel's __NR_ names.
#include "daemon/model/syscall_names.h"

#include <asm/unistd_64.h>
#include <fmt/format.h>

#include <string_view>

namespace gotraced::model {
namespace {

struct Entry {
  std::int64_t nr;
  std::string_view name;
  bool fd;
};

// X(name, first argument is an fd)
#define GT_SYSCALLS(X)                                                                                   \
  X(read, true) X(write, true) X(pread64, true) X(pwrite64, true) X(readv, true) X(writev, true)         \
  X(preadv, true) X(pwritev, true) X(preadv2, true) X(pwritev2, true) X(recvfrom, true)                  \
  X(recvmsg, true) X(recvmmsg, true) X(sendto, true) X(sendmsg, true) X(sendmmsg, true)                  \
  X(sendfile, true) X(splice, true) X(copy_file_range, true) X(accept, true) X(accept4, true)             \
  X(connect, true) X(fsync, true) X(fdatasync, true) X(sync_file_range, true) X(ftruncate, true)         \
  X(fallocate, true) X(fstat, true) X(newfstatat, false) X(statx, true) X(getdents64, true)               \
  X(ioctl, true) X(fcntl, true) X(flock, true) X(lseek, true) X(close, true) X(shutdown, true)           \
  X(getsockopt, true) X(setsockopt, true) X(bind, true) X(listen, true) X(epoll_ctl, true)               \
  X(epoll_wait, true) X(epoll_pwait, true) X(epoll_pwait2, true) X(openat, false) X(mkdirat, false)        \
  X(unlinkat, false) X(renameat, false) X(renameat2, false) X(fchmod, true) X(fchown, true)                 \
  X(open, false) X(stat, false) X(lstat, false) X(access, false) X(faccessat2, false) X(unlink, false)   \
  X(rename, false) X(mkdir, false) X(rmdir, false) X(poll, false) X(ppoll, false) X(select, false)       \
  X(pselect6, false) X(futex, false) X(nanosleep, false) X(clock_nanosleep, false) X(wait4, false)       \
  X(waitid, false) X(clone, false) X(clone3, false) X(execve, false) X(kill, false) X(tgkill, false)     \
  X(mmap, false) X(munmap, false) X(madvise, false) X(mprotect, false) X(brk, false) X(socket, false)    \
  X(socketpair, false) X(pipe2, false) X(dup, true) X(dup3, true) X(eventfd2, false)                      \
  X(epoll_create1, false) X(getrandom, false) X(sched_yield, false) X(sched_getaffinity, false)          \
  X(sched_setaffinity, false) X(getpid, false) X(gettid, false) X(uname, false) X(sysinfo, false)        \
  X(prctl, false) X(rt_sigaction, false) X(rt_sigprocmask, false) X(sigaltstack, false)                 \
  X(exit_group, false) X(readlinkat, false) X(inotify_add_watch, true) X(timerfd_settime, true) X(fadvise64, true)

#define GT_ENTRY(n, f) Entry{__NR_##n, #n, f},
constexpr Entry kTable[] = {GT_SYSCALLS(GT_ENTRY)};
#undef GT_ENTRY

const Entry *Find(std::int64_t nr) {
  for (const Entry &e : kTable)
    if (e.nr == nr) return &e;
  return nullptr;
}

}  // namespace

std::string SyscallName(std::int64_t nr) {
  const Entry *e = Find(nr);
  return e ? std::string(e->name) : fmt::format("syscall {}", nr);
}

bool SyscallTakesFd(std::int64_t nr) {
  const Entry *e = Find(nr);
  return e && e->fd;
}

bool SyscallCloses(std::int64_t nr) { return nr == __NR_close; }

bool SyscallReturnsFromSignal(std::int64_t nr) { return nr == __NR_rt_sigreturn; }

bool SyscallMovesBytes(std::int64_t nr) {
  switch (nr) {
    case __NR_read: case __NR_write: case __NR_pread64: case __NR_pwrite64: case __NR_readv:
    case __NR_writev: case __NR_preadv: case __NR_pwritev: case __NR_preadv2: case __NR_pwritev2:
    case __NR_recvfrom: case __NR_recvmsg: case __NR_sendto: case __NR_sendmsg: case __NR_sendfile:
    case __NR_splice: case __NR_copy_file_range: case __NR_getdents64: case __NR_getrandom:
      return true;
    default: return false;  // recvmmsg / sendmmsg return messages, not bytes
  }
}

}  // namespace gotraced::model
