// Command fidelity runs one short workload while the program's own runtime/trace
// records it, so that a trace gotraced writes of the same run can be compared with
// the reference, event class by event class (tests/tracecheck/cmd/tracecompare).
//
//	fidelity -workload W [-reftrace FILE] [-scale N] [-tmpdir DIR]
//
// Without -reftrace nothing is traced in-process (the bench's baseline). The
// "midrun" workload waits for SIGUSR1 after printing "ready" so that gotraced can
// attach with --pid to a process that is already busy; the compared part (and the
// reference trace) starts only after the signal.
//
// Each workload does a fixed amount of work (counts, not durations) so that two
// runs produce about the same events; -scale multiplies the counts (the bench uses
// it to make runs long enough to time). The program exits 0 on success.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/trace"
	"sort"
	"strings"
	"syscall"
	"time"
)

// workload is one scenario. scale >= 1 multiplies its iteration counts.
type workload struct {
	about string
	run   func(scale int)
}

// workloads is filled by the files that define them (init functions), so that the
// cgo workload exists only in binaries built with cgo.
var workloads = map[string]workload{}

func register(name, about string, run func(scale int)) { workloads[name] = workload{about, run} }

var (
	tmpDir     = flag.String("tmpdir", "", "directory for the syscalls workload's files (default: a new temp dir)")
	readyFile  = flag.String("ready-file", "", "midrun: also create this file when ready")
	midrunWait = flag.Duration("midrun-timeout", 60*time.Second, "midrun: give up waiting for SIGUSR1 after this long")
)

func main() {
	name := flag.String("workload", "", "workload to run (-list shows them)")
	ref := flag.String("reftrace", "", "write the in-process runtime/trace here (empty: no in-process tracing)")
	scale := flag.Int("scale", 1, "multiply the workload's iteration counts")
	list := flag.Bool("list", false, "list the workloads and exit")
	timing := flag.Bool("timing", false, "print the workload's wall time (ns) on stderr as 'workload_ns N'")
	flag.Parse()
	if *list {
		names := make([]string, 0, len(workloads))
		for n := range workloads {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%-10s %s\n", n, workloads[n].about)
		}
		return
	}
	w, ok := workloads[*name]
	if !ok || *scale < 1 {
		fmt.Fprintf(os.Stderr, "fidelity: unknown workload %q (have: %s) or bad -scale\n", *name, strings.Join(names(), ", "))
		os.Exit(2)
	}
	if *name == "midrun" {
		// midrun starts tracing itself, after the signal (see midrun.go).
		midrunMain(*ref, *scale, *timing)
		return
	}
	stop := startTrace(*ref)
	settle(*ref)
	m := startMeasure()
	w.run(*scale)
	m.stop()
	settle(*ref)
	stop()
	if *timing {
		m.print()
	}
}

// measure is the bench's view of one workload: wall time, and the CPU time of the
// whole process (all threads: user + system, so uprobe traps taken in the target
// count) over the same interval. CPU time stays meaningful on a loaded machine.
type measure struct {
	t0, t1     time.Time
	cpu0, cpu1 time.Duration
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startMeasure() *measure { return &measure{t0: time.Now(), cpu0: processCPU()} }

func (m *measure) stop() { m.t1, m.cpu1 = time.Now(), processCPU() }

// print writes "workload_ns W workload_cpu_ns C process_cpu_ns P" on stderr (P: the
// process's CPU time from its start to now).
func (m *measure) print() {
	fmt.Fprintf(os.Stderr, "workload_ns %d workload_cpu_ns %d process_cpu_ns %d\n",
		m.t1.Sub(m.t0).Nanoseconds(), (m.cpu1 - m.cpu0).Nanoseconds(), processCPU().Nanoseconds())
}

func names() []string {
	var ns []string
	for n := range workloads {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// settle pauses briefly between trace.Start and the workload, and between the workload
// and trace.Stop, when tracing in-process: tracecompare trims 1 ms off each end of the
// common window, and the workload's first goroutine creations must fall inside it.
func settle(ref string) {
	if ref != "" {
		time.Sleep(5 * time.Millisecond)
	}
}

// startTrace starts runtime/trace into path (if not empty) and returns the stop function.
func startTrace(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	check(err)
	check(trace.Start(f))
	return func() {
		trace.Stop()
		check(f.Close())
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}
