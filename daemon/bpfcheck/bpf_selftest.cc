#include "daemon/bpfcheck/bpf_selftest.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/capture/libbpf_log.h"
#include "daemon/capture/load_error.h"
#include "hello.skel.h"
#include "proto/records.h"

extern char **environ;

namespace gotraced {
namespace {

struct Seen {
  int pid = 0;
  bool got = false;
};

int OnRecord(void *ctx, void *data, size_t size) {
  auto *seen = static_cast<Seen *>(ctx);
  if (size < sizeof(gt_hello_record)) return 0;
  auto *r = static_cast<const gt_hello_record *>(data);
  if (r->h.kind == GT_REC_HELLO && static_cast<int>(r->h.tgid) == seen->pid) seen->got = true;
  return 0;
}

}  // namespace

std::string RunBpfSelfTest() {
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
    return "kernel has no BTF (/sys/kernel/btf/vmlinux); gotraced needs CONFIG_DEBUG_INFO_BTF=y";
  hello *skel = nullptr;
  {
    capture::LibbpfLogCapture log;
    skel = hello__open_and_load();
    if (!skel) {
      const int err = errno;
      capture::LoadContext c;
      c.what = "loading the BPF self-test";
      c.versions = capture::ReportVersions("");
      return capture::ExplainLoadFailure(capture::ObservedLoadFailure(err, log), c);
    }
  }
  std::string result;
  if (hello__attach(skel) != 0) {
    result = std::string("attaching sched_process_exec failed: ") + std::strerror(errno) +
             " (is tracefs mounted? mount -t tracefs tracefs /sys/kernel/tracing)";
  } else {
    Seen seen;
    ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.events), OnRecord, &seen, nullptr);
    const char *argv[] = {"/bin/true", nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char **>(argv), environ) != 0) {
      result = "could not spawn /bin/true";
    } else {
      seen.pid = pid;
      int status = 0;
      waitpid(pid, &status, 0);
      for (int i = 0; i < 20 && !seen.got; i++) ring_buffer__poll(rb, 50);
      if (!seen.got) result = "BPF program attached but recorded nothing for /bin/true";
    }
    ring_buffer__free(rb);
  }
  hello__destroy(skel);
  return result;
}

}  // namespace gotraced
