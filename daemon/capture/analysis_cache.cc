#include "daemon/capture/analysis_cache.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <vector>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/layout_resolver.h"

namespace gotraced::capture {

namespace {

// Every field of PlanOptions: two option sets with the same fingerprint plan alike.
std::string Fingerprint(const probes::PlanOptions &o) {
  return fmt::format("{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}", o.syscall_sample, o.syscall_switch, o.syscall_tracepoints, o.sched_switch, o.gc_probes,
                     o.sweep_probes, o.stacks, o.user_probes, o.syscalls_from_tracepoints, o.uprobe_multi,
                     o.legacy_syscall_tracepoints, o.sched_probes, o.gc_detail, o.syscall_min_ns, o.low_syscalls, o.labels);
}

struct Entry {
  std::string key;  // ExecutableKeyOf
  std::shared_ptr<const gobin::GoBinary> bin;
  gobin::RuntimeLayout layout;
  std::map<std::string, probes::ProbePlan> plans;  // by Fingerprint
};

std::mutex mu;
std::list<Entry> entries;  // most recently used first

}  // namespace

gobin::Result<std::string> ExecutableKeyOf(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return gobin::Error{fmt::format("{}: {}", path, std::strerror(errno))};
  const std::string tail = fmt::format("{}:{}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  // The build ID is a note at the start of the text (cmd/internal/buildid): ElfFile reads
  // the headers and that note, not the binary.
  if (auto elf = gobin::ElfFile::Open(path); elf && !(*elf)->go_build_id().empty())
    return fmt::format("go:{}:{}", (*elf)->go_build_id(), tail);
  return fmt::format("file:{}:{}:{}", st.st_dev, st.st_ino, tail);
}

gobin::Result<BinaryPlan> CachedBinaryPlan(const std::string &key, const std::string &path,
                                           const probes::PlanOptions &po) {
  const std::string fp = Fingerprint(po);
  BinaryPlan out;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (it->key != key) continue;
      entries.splice(entries.begin(), entries, it);
      out.bin = it->bin;
      out.layout = it->layout;
      out.cached = true;
      if (auto p = it->plans.find(fp); p != it->plans.end()) {
        out.plan = p->second;
        return out;
      }
      break;
    }
  }
  if (!out.bin) {
    // Analysed outside the lock: two threads may both analyse a new binary; the second
    // insert is then dropped.
    auto bin = gobin::GoBinary::Open(path);
    if (!bin) return gobin::Error{fmt::format("{}: {}", path, bin.error())};
    std::vector<std::string> notes;
    auto layout = gobin::ResolveRuntimeLayout((*bin)->elf(), (*bin)->go_version(), &notes);
    if (!layout) return gobin::Error{layout.error()};
    out.bin = std::shared_ptr<const gobin::GoBinary>(std::move(*bin));
    out.layout = std::move(*layout);
  }
  auto plan = probes::PlanFor(*out.bin, out.layout, po);
  if (!plan) return gobin::Error{plan.error()};
  out.plan = std::move(*plan);
  std::lock_guard<std::mutex> lock(mu);
  auto it = entries.begin();
  while (it != entries.end() && it->key != key) ++it;
  if (it == entries.end()) {
    entries.push_front(Entry{key, out.bin, out.layout, {}});
    it = entries.begin();
    if (entries.size() > kAnalysisCacheEntries) entries.pop_back();
  }
  it->plans.emplace(fp, out.plan);
  return out;
}

}  // namespace gotraced::capture
