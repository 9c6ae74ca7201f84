// hot: a CPU-bound Go program for tests/suites/47-cpu-samples.sh. One goroutine spins
// until the process has used -cpu of CPU time (not wall time: on a loaded machine the
// sample count must still be predictable), spending about 3/4 of its time in hotSpin and
// 1/4 in coldSpin (same loop, a third of hotSpin's iterations), so a CPU profile's
// samples have a known top function and a known share. With -self FILE it records its own execution trace with CPU
// profiling on (runtime/trace.Start + runtime/pprof.StartCPUProfile: the runtime then
// writes the CPU samples into the trace), the reference gotraced's samples are compared
// with. At exit it prints the process's CPU time ("cpu_seconds=X", getrusage user+sys).
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"
)

var sink uint64

//go:noinline
func spin(n int, x uint64) uint64 {
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	return x
}

// The work per round varies at random (same 3:1 ratio on average): a perfectly periodic
// loop could alias with the sampling period (perf's CPU clock fires every 1/hz exactly)
// and put most samples in the same phase of the loop.

//go:noinline
func hotSpin(n int, x uint64) uint64 { return spin(3*n, x) }

//go:noinline
func coldSpin(n int, x uint64) uint64 { return spin(n, x) }

func main() {
	budget := flag.Duration("cpu", 1500*time.Millisecond, "spin until the process used this much CPU time")
	self := flag.String("self", "", "write an in-process trace with CPU samples to this file")
	flag.Parse()
	if *self != "" {
		f, err := os.Create(*self)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// The CPU profile itself is not needed: its samples also go into the trace.
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer trace.Stop()
		defer pprof.StopCPUProfile()
	}
	x := uint64(1)
	for cpuTime() < *budget {
		n := 50000 + rand.Intn(100000)
		x = hotSpin(n, x)
		x = coldSpin(n, x)
	}
	sink = x
	fmt.Printf("cpu_seconds=%.3f\n", cpuTime().Seconds())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
