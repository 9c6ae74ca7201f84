#include "daemon/probes/uprobe_multi.h"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace gotraced::probes {

namespace {

// union bpf_attr's link_create with the uprobe_multi member of Linux 6.6's UAPI
// (include/uapi/linux/bpf.h), laid out by hand: the installed header is 6.1's.
struct LinkCreateUprobeMulti {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t mflags;
  uint32_t pid;
  uint32_t pad;
};
static_assert(offsetof(LinkCreateUprobeMulti, path) == 16, "link_create's union starts after 4 u32s");

int LinkCreate(const LinkCreateUprobeMulti &a) {
  union {
    bpf_attr attr;
    LinkCreateUprobeMulti m;
    char bytes[sizeof(bpf_attr) > sizeof(LinkCreateUprobeMulti) ? sizeof(bpf_attr) : sizeof(LinkCreateUprobeMulti)];
  } u;
  std::memset(&u, 0, sizeof(u));
  u.m = a;
  long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &u, sizeof(u));
  return fd < 0 ? -errno : int(fd);
}

int LoadTrivialProgram() {
  // r0 = 0; exit
  struct bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
  insns[0].dst_reg = BPF_REG_0;
  insns[1].code = BPF_JMP | BPF_EXIT;
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.prog_type = BPF_PROG_TYPE_KPROBE;
  attr.expected_attach_type = kBpfTraceUprobeMulti;
  attr.insns = reinterpret_cast<uint64_t>(insns);
  attr.insn_cnt = 2;
  static const char license[] = "GPL";
  attr.license = reinterpret_cast<uint64_t>(license);
  long fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
  return fd < 0 ? -1 : int(fd);
}

bool Probe() {
  int prog = LoadTrivialProgram();
  if (prog < 0) return false;
  static const char path[] = "/";
  uint64_t offset = 0;
  LinkCreateUprobeMulti a{};
  a.prog_fd = uint32_t(prog);
  a.attach_type = kBpfTraceUprobeMulti;
  a.path = reinterpret_cast<uint64_t>(path);
  a.offsets = reinterpret_cast<uint64_t>(&offset);
  a.cnt = 1;
  int r = LinkCreate(a);
  if (r >= 0) close(r);
  close(prog);
  return r == -EBADF;  // "/" is not a regular file: the attach type exists
}

}  // namespace

bool KernelHasUprobeMulti() {
  static const bool has = Probe();
  return has;
}

int AttachUprobeMulti(int prog_fd, const std::string &path, const std::vector<uint64_t> &offsets,
                      const std::vector<uint64_t> &cookies, pid_t pid) {
  if (offsets.empty() || offsets.size() != cookies.size()) return -EINVAL;
  LinkCreateUprobeMulti a{};
  a.prog_fd = uint32_t(prog_fd);
  a.attach_type = kBpfTraceUprobeMulti;
  a.path = reinterpret_cast<uint64_t>(path.c_str());
  a.offsets = reinterpret_cast<uint64_t>(offsets.data());
  a.cookies = reinterpret_cast<uint64_t>(cookies.data());
  a.cnt = uint32_t(offsets.size());
  a.pid = uint32_t(pid);
  return LinkCreate(a);
}

}  // namespace gotraced::probes
