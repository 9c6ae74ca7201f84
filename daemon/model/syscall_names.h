// x86-64 syscall numbers as names, and whether a syscall's first argument is a file
// descriptor: for the kernel view's syscall regions ("kernel: syscall read <target>",
// docs/kernel-view.md). The numbers are the kernel's (<asm/unistd_64.h>, the ABI gotraced
// traces: Go's ABIInternal on amd64).
#pragma once

#include <cstdint>
#include <string>

namespace gotraced::model {

// "read", "openat" ...; "syscall 451" for a number this table does not name.
std::string SyscallName(std::int64_t nr);
// The syscall's first argument is an fd that names what it waits on (read, write, pread64,
// recvfrom, sendmsg, fsync, accept4, connect, ioctl ...).
bool SyscallTakesFd(std::int64_t nr);
// close(2): the fd's cached target is stale from here on.
bool SyscallCloses(std::int64_t nr);
// rt_sigreturn(2): made only by a signal handler's return trampoline (the runtime's
// sa_restorer, runtime.sigreturn / sigreturn__sigaction), never through entersyscall.
bool SyscallReturnsFromSignal(std::int64_t nr);
// A successful call returns the bytes it moved (read, write, pread64, sendto, recvmsg,
// readv, sendfile, getrandom ...): the kernel view's byte counts.
bool SyscallMovesBytes(std::int64_t nr);

}  // namespace gotraced::model
