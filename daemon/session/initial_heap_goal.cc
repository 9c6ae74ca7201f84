#include "daemon/session/initial_heap_goal.h"

#include <fstream>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "daemon/model/heap_goal.h"

namespace gotraced::session {

namespace {

// The value of `name` in /proc/<pid>/environ (what the runtime's gogetenv reads: the
// process's initial environment), nullopt when unset.
std::optional<std::string> TargetEnv(const std::string &environ, std::string_view name) {
  std::string_view all(environ);
  while (!all.empty()) {
    const std::size_t end = all.find('\0');
    std::string_view kv = all.substr(0, end);
    if (kv.size() > name.size() && kv.substr(0, name.size()) == name && kv[name.size()] == '=')
      return std::string(kv.substr(name.size() + 1));
    if (end == std::string_view::npos) break;
    all.remove_prefix(end + 1);
  }
  return std::nullopt;
}

// modulesinit's gcController.addGlobals(edata-data + ebss-bss) (symtab.go): the .data and
// .bss sections the Go linker lays out between runtime.data/edata and bss/ebss.
std::uint64_t GlobalsScan(const gobin::GoBinary &bin) {
  std::uint64_t n = 0;
  for (const char *sec : {".data", ".bss"})
    if (const gobin::ElfSection *s = bin.elf().FindSection(sec)) n += s->size;
  return n;
}

}  // namespace

std::optional<std::uint64_t> InitialHeapGoal(bool launched, pid_t pid, const gobin::GoBinary &bin, int go_minor,
                                             const procmem::RuntimeSnapshot &snapshot, std::string *why) {
  if (!launched) {
    if (!snapshot.pacer_known) {
      *why = "gcController's heap-goal fields were not read at attach";
      return std::nullopt;
    }
    return model::TraceHeapGoal(snapshot.pacer, go_minor);
  }
  std::ifstream f(fmt::format("/proc/{}/environ", pid), std::ios::binary);
  if (!f) {
    *why = fmt::format("/proc/{}/environ not readable", pid);
    return std::nullopt;
  }
  const std::string environ((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::optional<std::string> gogc = TargetEnv(environ, "GOGC"), limit = TargetEnv(environ, "GOMEMLIMIT");
  const std::optional<std::int64_t> memory_limit = model::ParseGOMEMLIMIT(limit);
  if (!memory_limit) {
    *why = fmt::format("GOMEMLIMIT={} is not a byte count the runtime accepts", *limit);
    return std::nullopt;
  }
  const model::GcPacerState s = model::PacerAfterGcInit(model::ParseGOGC(gogc), *memory_limit, GlobalsScan(bin));
  return model::TraceHeapGoal(s, go_minor);
}

}  // namespace gotraced::session
