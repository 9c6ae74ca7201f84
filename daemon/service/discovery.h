// Discovery: which processes the [[watch]] rules select, from /proc.
//
// A process is described by what /proc says about it (executable, name, cgroup, owner,
// start time); matching is pure over that description, so the rules are unit-tested
// without processes. Start time (field 22 of /proc/PID/stat) tells a reused pid from the
// process that had it before.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/container/identity.h"
#include "daemon/service/config.h"

namespace gotraced::service {

struct ProcInfo {
  pid_t pid = 0;
  std::string exe;     // readlink /proc/PID/exe (" (deleted)" suffix removed): the path as the process sees it
  // The path to open the executable by: `exe` when the process shares our mount
  // namespace, else /proc/PID/exe (a container's /app/svc is not the host's).
  std::string binary;
  std::string comm;    // /proc/PID/comm
  std::string cgroup;  // cgroup v2 path ("0::" line of /proc/PID/cgroup), "" if none
  uid_t uid = 0;       // real uid
  uid_t euid = 0;      // effective uid
  std::uint64_t start_time = 0;  // clock ticks after boot
  bool kernel_thread = false;    // no executable (kthreads)
  // When it was read (CLOCK_MONOTONIC ns, an exec record's clock): an exec notification
  // stamped later is of the program read here, one stamped earlier made it.
  std::uint64_t read_ns = 0;
  // NSpid, container, runtime, pod, node (daemon/container/identity.h); empty fields where
  // the process is in no container or a runtime's state is not readable.
  container::Identity identity;
};

// nullopt if the process is gone (or not readable).
std::optional<ProcInfo> ReadProcInfo(pid_t pid);
// What rule matching needs first, cheaply (stat, exe link, comm: three reads of seven):
// pid, start_time, exe, comm, kernel_thread; the rest stays empty. nullopt if gone.
std::optional<ProcInfo> ReadProcBasics(pid_t pid);
// Start time of pid, or 0 if it is gone or a zombie.
std::uint64_t ProcessStartTime(pid_t pid);
// True if pid still is the process that started at `start_time` and is not a zombie.
bool ProcessAlive(pid_t pid, std::uint64_t start_time);
// Every numeric entry of /proc (thread-group ids).
std::vector<pid_t> ListPids();

// Where the container runtimes' state is: $GOTRACED_HOST_ROOT as a prefix of their host
// paths (a container that mounts the host's / at /host sets it), else the paths themselves.
container::IdentitySources IdentitySourcesFromEnv();
// A container selector (`container = ...`, --container): the id or a prefix of it (4+
// characters, as `docker ps` and `crictl ps` shorten it), else a glob on the id or the name.
bool MatchesContainer(const std::string &glob, const container::Identity &id);

bool MatchesRule(const WatchRule &rule, const ProcInfo &p);
// Whether some rule could select a process from its exe and comm alone (ReadProcBasics):
// false only when every rule has an exe or name selector that neither satisfies, so
// MatchRules is -1 whatever the rest of /proc says. A process this is false for needs no
// more reading.
bool RulesCouldMatch(const Config &cfg, const ProcInfo &basics);
// Index of the first matching rule, or -1.
int MatchRules(const Config &cfg, const ProcInfo &p);

}  // namespace gotraced::service
