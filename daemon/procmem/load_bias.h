// Load bias of a process's main executable: runtime address - link-time vaddr.
// 0 for a non-PIE (ET_EXEC) binary. For a PIE, from /proc/PID/maps: the mapping of the
// executable's inode with file offset 0 starts at bias + (first PT_LOAD vaddr rounded
// down to its page), exactly how the kernel's ELF loader placed it (fs/binfmt_elf.c).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {
class ElfFile;
}

namespace gotraced::procmem {

gobin::Result<uint64_t> LoadBias(pid_t pid, const gobin::ElfFile &elf);

}  // namespace gotraced::procmem
