// ext: a CPU-bound Go program whose time goes to code outside Go, for
// tests/suites/47-cpu-samples.sh: about half of it in the VDSO (main.nowLoop calls
// time.Now, which calls the VDSO's clock_gettime on the g0 stack: runtime
// time_linux_amd64.s time·now) and half in C (main.cgoLoop calls C.busy through
// runtime.cgocall, which runs it on the g0 stack: asm_amd64.s asmcgocall). The
// runtime's own profiler unwinds such samples from m.vdsoPC/m.vdsoSP and from
// curg.syscallpc/syscallsp (runtime/proc.go sigprof), so its stacks reach main.nowLoop
// and main.cgoLoop; gotraced's must too. -cpu and -self as in ../hot: spin until the
// process used that much CPU time; write an in-process trace with CPU samples.
package main

/*
// A busy loop that also uses RBP as a general register, as optimized C code is free to
// (-fomit-frame-pointer is the default at -O2 on x86-64): a frame-pointer walk from the
// interrupted registers then starts from garbage.
static unsigned long busy(unsigned long n) {
	unsigned long x = n | 1, y = 0;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long t;
		__asm__ volatile("movq %%rbp, %0\n\tmovq %1, %%rbp\n\timulq $1103515245, %%rbp\n\taddq $12345, %%rbp\n\tmovq %%rbp, %1\n\tmovq %0, %%rbp"
		                 : "=&r"(t), "+r"(x));
		y ^= x >> 17;
	}
	return x ^ y;
}
*/
import "C"

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
func nowLoop(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += uint64(time.Now().UnixNano())
	}
	return s
}

//go:noinline
func cgoLoop(n int) uint64 { return uint64(C.busy(C.ulong(n))) }

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
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer trace.Stop()
		defer pprof.StopCPUProfile()
	}
	var x uint64
	// Random amounts per round (see ../hot: no aliasing with the sampling period); about
	// equal CPU in each loop on this machine.
	for cpuTime() < *budget {
		x += nowLoop(20000 + rand.Intn(40000))
		x += cgoLoop(500000 + rand.Intn(1000000))
	}
	sink = x
	fmt.Printf("cpu_seconds=%.3f\n", cpuTime().Seconds())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
