// privstack_repro [SECONDS]: runs the two programs of privstack_repro.bpf.c, each for
// SECONDS (default 3), on a function of this binary that two threads pinned to one CPU
// call in a loop, and prints hits and clobbered frames per program. Exit status: 1 when
// the task-storage program (gotrace's design) saw a clobber or a program could not run;
// a clobbered big_stack is the kernel bug of docs/preemption.md, reported, not failed.
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "privstack_repro.skel.h"

extern "C" __attribute__((noinline, used)) void gt_repro_target(int i) { asm volatile("" ::"r"(i) : "memory"); }

namespace {

struct Counts {
  unsigned long long hits, clobbered;
};

bool RunOne(privstack_repro *skel, bpf_program *prog, unsigned which, double seconds, Counts *out) {
  LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "gt_repro_target");
  bpf_link *link = bpf_program__attach_uprobe_opts(prog, getpid(), "/proc/self/exe", 0, &uo);
  if (!link) {
    std::fprintf(stderr, "privstack_repro: attach %s: %s\n", bpf_program__name(prog), std::strerror(errno));
    return false;
  }
  std::atomic<bool> stop{false};
  auto body = [&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    for (int i = 0; !stop.load(std::memory_order_relaxed); i++) gt_repro_target(i);
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < 2; i++) ts.emplace_back(body);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto &t : ts) t.join();
  bpf_link__destroy(link);
  Counts c{};
  if (bpf_map__lookup_elem(skel->maps.results, &which, sizeof(which), &c, sizeof(c), 0) != 0) return false;
  *out = c;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  privstack_repro *skel = privstack_repro__open_and_load();
  if (!skel) {
    std::fprintf(stderr, "privstack_repro: load failed: %s\n", std::strerror(errno));
    return 1;
  }
  Counts big{}, task{};
  bool ok = RunOne(skel, skel->progs.big_stack, 0, seconds, &big) &&
            RunOne(skel, skel->progs.task_scratch, 1, seconds, &task);
  privstack_repro__destroy(skel);
  if (!ok) return 1;
  std::printf("privstack_repro: big_stack (128-byte BPF stack): %llu hits, %llu clobbered\n", big.hits, big.clobbered);
  std::printf("privstack_repro: task_scratch (task storage, gotrace's design): %llu hits, %llu clobbered\n", task.hits,
              task.clobbered);
  if (big.clobbered)
    std::printf("privstack_repro: KERNEL BUG reproduced: a preempted uprobe program's private stack was overwritten\n");
  if (task.hits == 0 || big.hits == 0) {
    std::printf("privstack_repro: FAIL: a program never ran\n");
    return 1;
  }
  if (task.clobbered) {
    std::printf("privstack_repro: FAIL: task-storage scratch was clobbered\n");
    return 1;
  }
  return 0;
}
