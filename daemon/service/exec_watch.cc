// User side of bpf/exec_watch.bpf.c. See exec_watch.h.
#include "daemon/service/exec_watch.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "daemon/capture/libbpf_log.h"
#include "daemon/capture/load_error.h"
#include "exec_watch.skel.h"
#include "proto/exec_watch.h"

namespace gotraced::service {

struct ExecWatcher::Impl {
  exec_watch *skel = nullptr;
  ring_buffer *rb = nullptr;
  std::vector<ProcEvent> *out = nullptr;  // set during Poll

  static int OnRecord(void *ctx, void *data, size_t size) {
    auto *self = static_cast<Impl *>(ctx);
    if (size < sizeof(gt_exec_watch_record) || !self->out) return 0;
    const auto *r = static_cast<const gt_exec_watch_record *>(data);
    ProcEvent e;
    e.pid = static_cast<pid_t>(r->tgid);
    e.ts_ns = r->ts_ns;
    if (r->kind == GT_EW_EXEC) {
      e.kind = ProcEvent::Kind::kExec;
      e.exe = r->exe;
      e.has_exe = r->exe.dev != 0 || r->exe.ino != 0;
      e.filename.assign(r->filename, strnlen(r->filename, sizeof r->filename));
    } else if (r->kind == GT_EW_EXIT) {
      e.kind = ProcEvent::Kind::kExit;
    } else {
      return 0;
    }
    self->out->push_back(e);
    return 0;
  }

  ~Impl() {
    if (rb) ring_buffer__free(rb);
    if (skel) exec_watch__destroy(skel);
  }
};

ExecWatcher::ExecWatcher() : impl_(std::make_unique<Impl>()) {}
ExecWatcher::~ExecWatcher() = default;

bool ExecWatcher::Start(std::string *error) {
  {
    capture::LibbpfLogCapture log;
    impl_->skel = exec_watch__open_and_load();
    if (!impl_->skel) {
      const int err = errno;
      if (error)
        *error = capture::ExplainLoadFailure(capture::ObservedLoadFailure(err, log),
                                             {"loading the exec-watch BPF program", capture::ReportVersions(""), ""});
      return false;
    }
  }
  if (exec_watch__attach(impl_->skel) != 0) {
    int err = errno;
    if (error)
      *error = std::string("attaching sched_process_exec/exit failed: ") + std::strerror(err) +
               " (is tracefs mounted?)";
    exec_watch__destroy(impl_->skel);
    impl_->skel = nullptr;
    return false;
  }
  impl_->rb = ring_buffer__new(bpf_map__fd(impl_->skel->maps.exec_events), &Impl::OnRecord, impl_.get(), nullptr);
  if (!impl_->rb) {
    if (error) *error = "creating the exec-watch ring buffer reader failed";
    exec_watch__destroy(impl_->skel);
    impl_->skel = nullptr;
    return false;
  }
  return true;
}

void ExecWatcher::Poll(int timeout_ms, std::vector<ProcEvent> *out) {
  if (!impl_->rb) return;
  impl_->out = out;
  ring_buffer__poll(impl_->rb, timeout_ms);
  impl_->out = nullptr;
}

std::uint64_t ExecWatcher::lost() const {
  if (!impl_->skel) return 0;
  std::uint32_t key = 0;
  std::uint64_t v = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(impl_->skel->maps.exec_lost), &key, &v) != 0) return 0;
  return v;
}

std::uint64_t ExecWatcher::filtered() const {
  if (!impl_->skel) return 0;
  const int ncpu = libbpf_num_possible_cpus();
  if (ncpu <= 0) return 0;
  std::vector<std::uint64_t> per(static_cast<std::size_t>(ncpu));
  std::uint32_t key = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(impl_->skel->maps.exec_filtered), &key, per.data()) != 0) return 0;
  std::uint64_t sum = 0;
  for (std::uint64_t v : per) sum += v;
  return sum;
}

void ExecWatcher::Watch(pid_t tgid) {
  if (!impl_->skel) return;
  const std::uint32_t k = static_cast<std::uint32_t>(tgid);
  const std::uint8_t v = 1;
  bpf_map_update_elem(bpf_map__fd(impl_->skel->maps.watched), &k, &v, BPF_ANY);
}

void ExecWatcher::Unwatch(pid_t tgid) {
  if (!impl_->skel) return;
  const std::uint32_t k = static_cast<std::uint32_t>(tgid);
  bpf_map_delete_elem(bpf_map__fd(impl_->skel->maps.watched), &k);
}

void ExecWatcher::Skip(const gt_exe_key &key) {
  if (!impl_->skel) return;
  const std::uint8_t v = 1;
  bpf_map_update_elem(bpf_map__fd(impl_->skel->maps.exec_skip), &key, &v, BPF_ANY);
}

bool ExecWatcher::running() const { return impl_->rb != nullptr; }

}  // namespace gotraced::service
