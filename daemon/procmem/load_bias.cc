#include "daemon/procmem/load_bias.h"

#include <elf.h>
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"

namespace gotraced::procmem {

gobin::Result<uint64_t> LoadBias(pid_t pid, const gobin::ElfFile &elf) {
  if (!elf.is_pie()) return uint64_t{0};
  uint64_t first_vaddr = ~uint64_t{0};
  for (const auto &seg : elf.Segments())
    if (seg.type == PT_LOAD && seg.offset == 0) first_vaddr = seg.vaddr;
  if (first_vaddr == ~uint64_t{0}) {
    for (const auto &seg : elf.Segments())
      if (seg.type == PT_LOAD && seg.vaddr - seg.offset < first_vaddr) first_vaddr = seg.vaddr - seg.offset;
  }
  struct stat st;
  std::string exe = fmt::format("/proc/{}/exe", pid);
  if (stat(exe.c_str(), &st) != 0) return gobin::Error{fmt::format("stat {}: process gone?", exe)};
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  if (!maps) return gobin::Error{fmt::format("cannot read /proc/{}/maps", pid)};
  std::string line;
  while (std::getline(maps, line)) {
    uint64_t start = 0, end = 0, off = 0, inode = 0;
    unsigned dmaj = 0, dmin = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64, &start, &end, perms, &off,
                    &dmaj, &dmin, &inode) != 7)
      continue;
    if (inode != st.st_ino || off != 0) continue;
    return start - (first_vaddr & ~uint64_t{0xfff});
  }
  return gobin::Error{fmt::format("executable mapping not found in /proc/{}/maps", pid)};
}

}  // namespace gotraced::procmem
