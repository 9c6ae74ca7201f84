#include "daemon/procmem/process_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gotraced::procmem {

ProcessMemory::ProcessMemory(pid_t pid) : pid_(pid) {}

bool ProcessMemory::Read(uint64_t addr, void *dst, size_t n) const {
  if (n == 0) return true;
  iovec local{dst, n};
  iovec remote{reinterpret_cast<void *>(addr), n};
  ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(n)) return true;
  int err = got < 0 ? errno : 0;
  if (err == ENOSYS || err == EPERM) {
    // Some sandboxes forbid process_vm_readv but allow /proc/PID/mem (same ptrace check).
    std::string path = fmt::format("/proc/{}/mem", pid_);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t r = pread(fd, dst, n, static_cast<off_t>(addr));
      close(fd);
      if (r == static_cast<ssize_t>(n)) return true;
    }
  }
  last_error_ = got < 0 ? fmt::format("read {} bytes at {:#x} in pid {}: {}", n, addr, pid_, std::strerror(err))
                        : fmt::format("short read at {:#x} in pid {}: {} of {} bytes", addr, pid_, got, n);
  return false;
}

bool ProcessMemory::ReadUint(uint64_t addr, int size, uint64_t *out) const {
  uint64_t v = 0;
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    last_error_ = fmt::format("bad integer size {}", size);
    return false;
  }
  if (!Read(addr, &v, static_cast<size_t>(size))) return false;
  *out = v;  // little endian: the low `size` bytes were filled
  return true;
}

}  // namespace gotraced::procmem
