// The kernel view's syscall log, "read /x: 30.100 ms, 4096 bytes: on CPU 0.200 ms, off-CPU
// sleep 29.500 ms, run-queue wait 0.400 ms, then waiting for a P 1.000 ms"
// (daemon/model/model_kernel_syscall.cc KernelSyscallMessage), read back: the region type
// it belongs to, the syscall's name, its byte count and its parts in ns. And the folding
// of a peer's ephemeral port in a syscall region's name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace gotraced::report {

// The syscall duration of Go's own events (GoSyscallBegin to GoSyscallEnd/EndBlocked), a
// cause beside the kernel's in KernelSide.
inline constexpr const char *kGoSyscallCause = "go: syscall";

struct SyscallLog {
  std::string type, name;  // "kernel: syscall read /x", "read"
  std::map<std::string, std::uint64_t> parts;
  bool has_bytes = false;
  std::uint64_t bytes = 0;
  std::uint64_t total_ns = 0;  // the syscall's own duration (the first figure)
};

bool ParseSyscallLog(std::string_view msg, SyscallLog *out);

// "kernel: syscall read tcp 127.0.0.1:41234" -> "kernel: syscall read tcp 127.0.0.1:*":
// a port in Linux's default ephemeral range (net.ipv4.ip_local_port_range, 32768-60999)
// at the end of a tcp/udp name is a peer's, different for every connection. Other names
// are returned as they are.
std::string FoldPeerPort(std::string_view type);

}  // namespace gotraced::report
