#include "daemon/procmem/process_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

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

namespace {

// Windows at most this far apart are read as one range: the bytes between cost a copy,
// while each remote iovec costs the kernel a page lookup and pin of its own
// (mm/process_vm_access.c process_vm_rw_single_vec). The runtime's gs sit ~400 bytes
// apart in their size class's spans, so a sample reads each page of them once.
constexpr uint64_t kMergeGap = 4096;
constexpr uint64_t kMaxRange = 64 << 10;
// Bytes per process_vm_readv: the buffer stays in the cache between the kernel's copy and
// ours (100k goroutines are ~48 MB of gs: 1024 ranges at once were 8 MB buffers, ~2x slower).
constexpr std::size_t kMaxBatchBytes = 256 << 10;

}  // namespace

std::size_t ProcessMemory::ReadEach(const uint64_t *addrs, std::size_t n, std::size_t each, void *dst,
                                    uint8_t *ok) const {
  auto *out = static_cast<uint8_t *>(dst);
  std::fill(ok, ok + n, uint8_t{0});
  if (each == 0 || n == 0) return 0;
  // Consecutive windows (in the caller's order) that lie close together, merged into
  // ranges [start, end) of windows [first, last). No sort: the runtime's allgs is in the
  // order the gs were allocated, which is their address order within a span, and sorting
  // 100k addresses cost as much as reading them.
  struct Range {
    uint64_t start, end;
    std::size_t first, last;
  };
  std::vector<Range> ranges;
  for (std::size_t k = 0; k < n; ++k) {
    const uint64_t a = addrs[k];
    Range *r = ranges.empty() ? nullptr : &ranges.back();
    if (r && a >= r->start && a <= r->end + kMergeGap && a + each - r->start <= kMaxRange) {
      r->end = std::max(r->end, a + each);
      r->last = k + 1;
    } else {
      ranges.push_back({a, a + each, k, k + 1});
    }
  }
  std::size_t done = 0;
  auto take = [&](const Range &r, const uint8_t *bytes) {
    for (std::size_t k = r.first; k < r.last; ++k) {
      std::memcpy(out + k * each, bytes + (addrs[k] - r.start), each);
      ok[k] = 1;
      ++done;
    }
  };
  // A range that cannot be read whole (something unmapped in it): its windows one by one.
  auto one_by_one = [&](const Range &r) {
    for (std::size_t k = r.first; k < r.last; ++k)
      if (Read(addrs[k], out + k * each, each)) {
        ok[k] = 1;
        ++done;
      }
  };
  std::vector<iovec> remote;
  std::vector<uint8_t> buf;
  std::size_t i = 0;
  while (i < ranges.size()) {
    remote.clear();
    std::size_t total = 0;
    for (std::size_t k = i; k < ranges.size() && remote.size() < kReadEachBatch; ++k) {
      const Range &r = ranges[k];
      if (!remote.empty() && total + (r.end - r.start) > kMaxBatchBytes) break;
      remote.push_back({reinterpret_cast<void *>(r.start), r.end - r.start});
      total += r.end - r.start;
    }
    const std::size_t count = remote.size();
    buf.resize(total);
    iovec local{buf.data(), total};
    const ssize_t got = process_vm_readv(pid_, &local, 1, remote.data(), static_cast<unsigned long>(count), 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) {  // no process_vm_readv here: Read (pread) each
      for (; i < ranges.size(); ++i) one_by_one(ranges[i]);
      return done;
    }
    // Whole remote iovecs are read up to the first that fails (process_vm_readv(2):
    // partial transfers never split an iovec); -1 when the first one fails.
    std::size_t at = 0, k = 0;
    const std::size_t read = got < 0 ? 0 : static_cast<std::size_t>(got);
    for (; k < count && at + remote[k].iov_len <= read; ++k) {
      take(ranges[i + k], buf.data() + at);
      at += remote[k].iov_len;
    }
    if (k < count) {
      if (got < 0) last_error_ = fmt::format("read at {:#x} in pid {}: {}", ranges[i + k].start, pid_, std::strerror(errno));
      one_by_one(ranges[i + k]);
      ++k;
    }
    i += k;
  }
  return done;
}

}  // namespace gotraced::procmem
