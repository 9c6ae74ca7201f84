// syscall-hooks-bench (issue 28 part 2): what one getppid costs, in thread CPU ns per
// call (as bench/host/getppid_ns.c), with nothing attached and with each place a syscall
// recorder can hook (syscall_hooks.bpf.c), for a bystander (its tgid not in the map) and
// for the watched process (its tgid in the map). Modes and cases alternate, REPS times
// (the mode order rotated and the case order swapped each rep, an unmeasured quarter-length
// run before each measured one); every run is printed, then the medians and their ratio to
// the median of every run with no program. A mode the kernel refuses says why and is left
// out. "body_runs_per_call" says the programs ran: 2 for an entry+exit pair when watched.
//   syscall-hooks-bench [REPS [CALLS]]      (default 7, 200000)
// Output lines: "kernel", "symbol", "mode NAME ok|refused: why", "run", "base", "median";
// the guest's /init (guest-init.sh) prints them on its console.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "syscall_hooks.skel.h"

// Each mode: its name and the programs (syscall_hooks.bpf.c) it attaches.
struct mode_spec {
  const char *name;
  const char *progs[2];
};
static const struct mode_spec kModes[] = {
    {"none", {NULL, NULL}},
    {"tracepoints", {"tp_enter", "tp_exit"}},
    {"fentry-x64_sys_call", {"disp_entry", "disp_exit"}},
    {"sys_enter-only", {"tp_enter", NULL}},
    {"fentry-only-x64_sys_call", {"disp_entry", NULL}},
    {"sched_switch", {"on_switch", NULL}},
};
enum { M_NONE = 0, M_COUNT = sizeof(kModes) / sizeof(kModes[0]) };
static const char *const kCaseName[2] = {"bystander", "watched"};

struct mode {
  struct syscall_hooks *skel;      // NULL for none, or when refused
  struct bpf_program *progs[2];    // what this mode attaches (progs[1] may be NULL)
  struct bpf_link *links[2];
  char why[256];                   // why it was refused
};

static char libbpf_last[512];  // libbpf's first warning since reset: the refusal's cause
static int on_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap) {
  if (level == LIBBPF_DEBUG) return 0;
  if (!libbpf_last[0]) {
    va_list copy;
    va_copy(copy, ap);
    vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, copy);
    va_end(copy);
  }
  return vfprintf(stderr, fmt, ap);
}

static double getppid_ns(long n) {
  struct timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  for (long i = 0; i < n; i++) syscall(SYS_getppid);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
}

// Whether NAME is a function of the kernel's BTF (fentry needs it there) and of ftrace's
// list (fentry needs a call site to patch): printed so a refusal reads with its cause.
static void say_symbol(const char *name) {
  struct btf *btf = btf__load_vmlinux_btf();
  int in_btf = btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
  btf__free(btf);
  int in_ftrace = -1;  // -1: the list could not be read
  FILE *f = fopen("/sys/kernel/tracing/available_filter_functions", "r");
  if (f) {
    in_ftrace = 0;
    char line[512];
    size_t len = strlen(name);
    while (fgets(line, sizeof(line), f))
      if (!strncmp(line, name, len) && (line[len] == '\n' || line[len] == ' ')) in_ftrace = 1;
    fclose(f);
  }
  int in_kallsyms = 0;
  f = fopen("/proc/kallsyms", "r");
  if (f) {
    char line[512], sym[256];
    while (fgets(line, sizeof(line), f))
      if (sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name)) in_kallsyms = 1;
    fclose(f);
  }
  printf("symbol %s kallsyms=%s btf=%s ftrace=%s\n", name, in_kallsyms ? "yes" : "no",
         in_btf ? "yes" : "no", in_ftrace < 0 ? "unreadable" : in_ftrace ? "yes" : "no");
}

static void detach(struct mode *m) {
  for (int i = 0; i < 2; i++) {
    bpf_link__destroy(m->links[i]);
    m->links[i] = NULL;
  }
}

static int attach(struct mode *m) {
  for (int i = 0; i < 2; i++) {
    if (!m->progs[i]) continue;
    libbpf_last[0] = 0;
    m->links[i] = bpf_program__attach(m->progs[i]);
    if (!m->links[i]) {
      int err = errno;
      snprintf(m->why, sizeof(m->why), "attach %s: %s (%s)", bpf_program__name(m->progs[i]),
               strerror(err), strtok(libbpf_last, "\n") ? libbpf_last : "");
      detach(m);
      return -1;
    }
  }
  return 0;
}

// Opens and loads its own object per mode, only its programs loaded (a program the
// kernel refuses then refuses its mode alone), and attaches once to find out.
static void prepare(struct mode *m, int id) {
  struct syscall_hooks *s = syscall_hooks__open();
  if (!s) {
    snprintf(m->why, sizeof(m->why), "open: %s", strerror(errno));
    return;
  }
  struct bpf_program *p;
  bpf_object__for_each_program(p, s->obj) bpf_program__set_autoload(p, false);
  for (int i = 0; i < 2; i++)
    if (kModes[id].progs[i]) m->progs[i] = bpf_object__find_program_by_name(s->obj, kModes[id].progs[i]);
  for (int i = 0; i < 2; i++)
    if (m->progs[i]) bpf_program__set_autoload(m->progs[i], true);
  libbpf_last[0] = 0;
  if (syscall_hooks__load(s)) {
    int err = errno;
    snprintf(m->why, sizeof(m->why), "load: %s (%s)", strerror(err),
             strtok(libbpf_last, "\n") ? libbpf_last : "");
    syscall_hooks__destroy(s);
    m->progs[0] = m->progs[1] = NULL;
    return;
  }
  m->skel = s;
  if (attach(m)) {
    syscall_hooks__destroy(s);
    m->skel = NULL;
    m->progs[0] = m->progs[1] = NULL;
    return;
  }
  detach(m);
}

static void set_watched(struct mode *m, int watched) {
  __u32 me = (__u32)getpid(), other = 0x7ffffff0;  // a tgid no task has: a non-empty map
  __u8 one = 1;
  bpf_map__update_elem(m->skel->maps.watched, &other, sizeof(other), &one, 1, BPF_ANY);
  if (watched)
    bpf_map__update_elem(m->skel->maps.watched, &me, sizeof(me), &one, 1, BPF_ANY);
  else
    bpf_map__delete_elem(m->skel->maps.watched, &me, sizeof(me), 0);
}

// Runs of the watched case's body so far, all CPUs summed.
static unsigned long long hits_total(struct mode *m) {
  int ncpu = libbpf_num_possible_cpus();
  struct { __u64 ts, n; } *v = calloc((size_t)ncpu, 16);
  __u32 k = 0;
  unsigned long long n = 0;
  if (v && !bpf_map__lookup_elem(m->skel->maps.hits, &k, sizeof(k), v, 16 * (size_t)ncpu, 0))
    for (int i = 0; i < ncpu; i++) n += v[i].n;
  free(v);
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 7;
  long calls = argc > 2 ? atol(argv[2]) : 200000;
  if (reps < 1 || reps > 64 || calls < 1) {
    fprintf(stderr, "usage: %s [REPS (1-64) [CALLS]]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  libbpf_set_print(on_libbpf_print);
  struct utsname u;
  uname(&u);
  printf("kernel %s %s\n", u.release, u.version);
  say_symbol("x64_sys_call");

  struct mode modes[M_COUNT] = {0};
  for (int id = 1; id < M_COUNT; id++) {
    prepare(&modes[id], id);
    if (modes[id].skel)
      printf("mode %s ok\n", kModes[id].name);
    else
      printf("mode %s refused: %s\n", kModes[id].name, modes[id].why);
  }

  static double ns[M_COUNT][2][64];
  getppid_ns(calls);  // warm-up
  for (int r = 0; r < reps; r++) {
    for (int j = 0; j < M_COUNT; j++) {
      int id = (j + r) % M_COUNT;
      struct mode *m = &modes[id];
      if (id != M_NONE && !m->skel) continue;
      if (id != M_NONE && attach(m)) {
        printf("mode %s attach failed at rep %d: %s\n", kModes[id].name, r + 1, m->why);
        return 1;
      }
      for (int k = 0; k < 2; k++) {
        int c = (k + r) % 2;  // which case goes first alternates too
        if (id != M_NONE) set_watched(m, c);
        // Unmeasured first: under TCG the first calls after an attach translate the
        // new code, which would be charged to whichever case ran first.
        getppid_ns(calls / 4 + 1);
        unsigned long long h0 = id != M_NONE ? hits_total(m) : 0;
        ns[id][c][r] = getppid_ns(calls);
        unsigned long long h1 = id != M_NONE ? hits_total(m) : 0;
        printf("run rep=%d mode=%s case=%s ns=%.1f body_runs_per_call=%.2f\n", r + 1,
               kModes[id].name, kCaseName[c], ns[id][c][r], (double)(h1 - h0) / (double)calls);
      }
      if (id != M_NONE) detach(m);
    }
  }

  // The base: every run with no program, both cases pooled (they are the same loop).
  double pooled[128];
  memcpy(pooled, ns[M_NONE][0], sizeof(double) * (size_t)reps);
  memcpy(pooled + reps, ns[M_NONE][1], sizeof(double) * (size_t)reps);
  qsort(pooled, 2 * (size_t)reps, sizeof(double), cmp_double);
  double base = (pooled[reps - 1] + pooled[reps]) / 2;
  printf("base none ns=%.1f (median of its %d runs, both cases)\n", base, 2 * reps);
  for (int id = 0; id < M_COUNT; id++) {
    if (id != M_NONE && !modes[id].skel) continue;
    for (int c = 0; c < 2; c++) {
      double sorted[64];
      memcpy(sorted, ns[id][c], sizeof(double) * (size_t)reps);
      qsort(sorted, (size_t)reps, sizeof(double), cmp_double);
      double med = reps % 2 ? sorted[reps / 2] : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
      printf("median mode=%s case=%s ns=%.1f ratio=%.2f runs=", kModes[id].name, kCaseName[c], med,
             med / base);
      for (int r = 0; r < reps; r++) printf("%s%.1f", r ? "," : "", ns[id][c][r]);
      printf("\n");
    }
  }
  for (int id = 1; id < M_COUNT; id++)
    if (modes[id].skel) syscall_hooks__destroy(modes[id].skel);
  return 0;
}
