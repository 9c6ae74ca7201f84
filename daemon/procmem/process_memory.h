// ProcessMemory: read-only access to another process's memory (process_vm_readv; falls
// back to pread on /proc/PID/mem). Never writes. Needs the same rights as ptrace-read
// (root, or CAP_SYS_PTRACE).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "daemon/gobin/result.h"

namespace gotraced::procmem {

class ProcessMemory {
 public:
  // Checks that the process exists and one read works (reads its auxv-backed stack? no:
  // reads nothing; the first Read() reports permission problems).
  explicit ProcessMemory(pid_t pid);
  pid_t pid() const { return pid_; }

  // Reads exactly n bytes at addr. false on any failure (unmapped, process gone, EPERM);
  // last_error() says which.
  bool Read(uint64_t addr, void *dst, size_t n) const;
  template <class T>
  bool ReadValue(uint64_t addr, T *out) const {
    static_assert(std::is_trivially_copyable_v<T>);
    return Read(addr, out, sizeof(T));
  }
  // Reads a little-endian unsigned integer of `size` bytes (1, 2, 4, 8) at addr.
  bool ReadUint(uint64_t addr, int size, uint64_t *out) const;
  // Reads `each` bytes at every addrs[i] into dst + i * each; ok[i] = 1 when addrs[i] was
  // read whole. Returns how many were. For many small structs (the state sampler reads
  // ~40 bytes of every runtime.g): windows close to each other are read as one range, up
  // to kReadEachBatch ranges per process_vm_readv; a range with something unmapped in it
  // is read window by window.
  static constexpr std::size_t kReadEachBatch = 1024;  // IOV_MAX
  std::size_t ReadEach(const uint64_t *addrs, std::size_t n, std::size_t each, void *dst, uint8_t *ok) const;

  const std::string &last_error() const { return last_error_; }

  // Load bias of the main executable (runtime address - link-time vaddr): 0 for non-PIE;
  // from /proc/PID/maps + the ELF's PT_LOAD when PIE. Computed by the caller who knows the
  // ELF (see procmem/snapshot.h); stored here for reads of link-time addresses.
  void set_load_bias(uint64_t b) { bias_ = b; }
  uint64_t load_bias() const { return bias_; }

 private:
  pid_t pid_;
  uint64_t bias_ = 0;
  mutable std::string last_error_;
};

}  // namespace gotraced::procmem
