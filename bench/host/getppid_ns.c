// gotraced-getppid-ns: the cost of one system call in a process no one traces, as
// bench/host/host_cost.py measures it beside the watched processes (issue 28: every
// program on a syscall tracepoint runs at every syscall of the host). Makes N getppid
// calls (syscall(2): no libc caching) and prints the mean ns of the thread's CPU time per
// call (CPU time, not wall time: on a shared machine the loop is preempted).
//   gotraced-getppid-ns [N]     (default 2,000,000)
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  struct timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  for (long i = 0; i < n; i++) syscall(SYS_getppid);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
  printf("%.1f\n", ns / (double)n);
  return 0;
}
