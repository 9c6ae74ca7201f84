// kview: workloads whose kernel effects are known and independently measured, for the
// kernel view's tests (tests/suites/53-kernel-view.sh, docs/kernel-view.md).
//
//	-workload preempt: two goroutines, each locked to its own thread, both threads pinned
//	  to one CPU, spin for -seconds of CPU each (no function call while spinning): each
//	  is preempted by the other. Each prints its goid,
//	  thread and the thread's run-queue wait from /proc/self/task/TID/schedstat (2nd field,
//	  ns: Documentation/scheduler/sched-stats.rst) when it starts and stops spinning.
//	-workload pipe: a goroutine reads a blocking pipe (syscall.Pipe: not the netpoller's)
//	  that another goroutine writes after sleeping -delay; prints the read's wall time,
//	  closes the pipe at once and exits.
//	-workload file: writes -mb MiB to -file, fsyncs it and drops it from the page cache
//	  (posix_fadvise POSIX_FADV_DONTNEED), then reads it back with pread in 1 MiB calls;
//	  prints the reads' wall time and how many took 1 ms or more.
//	-workload throttle: moves itself into the cgroups named by -cgroup (their cgroup.procs)
//	  and pins every thread to -cpu, then one goroutine spins for -seconds.
//
// Run with GODEBUG=asyncpreemptoff=1 so that the spinning goroutines stay running in
// Go's view (no sysmon preemption), and their threads' off-CPU time is the kernel's alone.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

var sink uint64

func goid() int {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b)) // "goroutine N [running]:"
	n, _ := strconv.Atoi(f[1])
	return n
}

// pin sets the CPU affinity of thread tid (0: the calling thread).
func pin(tid, cpu int) error {
	var mask [16]uint64
	mask[cpu/64] |= 1 << (cpu % 64)
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0])))
	if e != 0 {
		return e
	}
	return nil
}

// schedstat returns the thread's run-queue wait (ns) and the number of times it was
// switched in (Documentation/scheduler/sched-stats.rst: /proc/PID/schedstat fields 2, 3).
func schedstat(tid int) (wait, slices uint64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", tid))
	if err != nil {
		panic(err)
	}
	f := bytes.Fields(b)
	wait, _ = strconv.ParseUint(string(f[1]), 10, 64)
	slices, _ = strconv.ParseUint(string(f[2]), 10, 64)
	return wait, slices
}

// spinN runs n rounds of a loop with no function call in it: with asyncpreemptoff=1 the
// runtime cannot preempt it (sync preemption needs a call's stack check), so the
// goroutine stays Running in Go's view and only the kernel takes its CPU.
//
//go:noinline
func spinN(n uint64) {
	for i := uint64(0); i < n; i++ {
		sink += i ^ (sink >> 3)
	}
}

// roundsFor calibrates spinN: how many rounds take d of CPU.
func roundsFor(d time.Duration) uint64 {
	const probe = 20_000_000
	t0 := time.Now()
	spinN(probe)
	el := time.Since(t0)
	return uint64(float64(probe) * float64(d) / float64(el))
}

func spin(d time.Duration) {
	start := time.Now()
	for time.Since(start) < d {
		for i := 0; i < 2_000_000; i++ {
			sink += uint64(i)
		}
	}
}

func main() {
	workload := flag.String("workload", "preempt", "preempt | throttle")
	seconds := flag.Float64("seconds", 2, "how long to spin")
	cpu := flag.Int("cpu", 0, "the CPU to pin to")
	cgroups := flag.String("cgroup", "", "comma-separated cgroup directories to join (throttle)")
	delay := flag.Duration("delay", 300*time.Millisecond, "how late the pipe is written (pipe)")
	file := flag.String("file", "", "the file to write and read back (file)")
	mb := flag.Int("mb", 64, "MiB to write and read back (file)")
	flag.Parse()
	d := time.Duration(*seconds * float64(time.Second))
	switch *workload {
	case "preempt":
		rounds := roundsFor(d) // CPU time each: with both on one CPU, ~2x d of wall time
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				tid := syscall.Gettid()
				if err := pin(0, *cpu); err != nil {
					panic(err)
				}
				g := goid()
				a, sa := schedstat(tid)
				spinN(rounds)
				b, sb := schedstat(tid)
				mu.Lock()
				fmt.Printf("{\"goid\": %d, \"tid\": %d, \"run_delay_ns\": %d, \"slices\": %d}\n", g, tid, b-a, sb-sa)
				mu.Unlock()
			}()
		}
		wg.Wait()
	case "throttle":
		for _, cg := range strings.Split(*cgroups, ",") {
			if cg == "" {
				continue
			}
			if err := os.WriteFile(cg+"/cgroup.procs", []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
				panic(err)
			}
		}
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			panic(err)
		}
		for _, t := range tasks {
			tid, _ := strconv.Atoi(t.Name())
			if err := pin(tid, *cpu); err != nil {
				panic(err)
			}
		}
		done := make(chan int)
		go func() {
			spin(d)
			done <- goid()
		}()
		fmt.Printf("{\"spinner_goid\": %d}\n", <-done)
	case "pipe":
		var p [2]int
		if err := syscall.Pipe(p[:]); err != nil {
			panic(err)
		}
		go func() {
			time.Sleep(*delay)
			syscall.Write(p[1], []byte("late"))
		}()
		buf := make([]byte, 16)
		t0 := time.Now()
		n, err := syscall.Read(p[0], buf)
		el := time.Since(t0)
		if err != nil || n != 4 {
			panic(fmt.Sprint("read ", n, err))
		}
		// Closed at once, and the program ends: gotraced names the fd when it decodes the
		// read's entry record (within a ring drain of the entry, while the read waits),
		// not after the syscall, when it would be gone.
		syscall.Close(p[0])
		syscall.Close(p[1])
		fmt.Printf("{\"reader_goid\": %d, \"read_ns\": %d, \"bytes\": %d}\n", goid(), el.Nanoseconds(), n)
	case "file":
		readBack(*file, *mb)
	default:
		fmt.Fprintln(os.Stderr, "unknown workload", *workload)
		os.Exit(2)
	}
}

// readBack: the file workload (see the top of the file).
func readBack(path string, mb int) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_TRUNC, 0o600)
	if err != nil {
		panic(err)
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for i := 0; i < mb; i++ {
		if _, err := syscall.Write(fd, chunk); err != nil {
			panic(err)
		}
	}
	if err := syscall.Fsync(fd); err != nil {
		panic(err)
	}
	// posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED = 4): clean pages leave the page cache.
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(fd), 0, 0, 4, 0, 0); e != 0 {
		panic(e)
	}
	io0 := readBytes()
	var total time.Duration
	slow := 0
	for i := 0; i < mb; i++ {
		t0 := time.Now()
		n, err := syscall.Pread(fd, chunk, int64(i)<<20)
		el := time.Since(t0)
		if err != nil || n != len(chunk) {
			panic(fmt.Sprint("pread ", n, err))
		}
		total += el
		if el >= time.Millisecond {
			slow++
		}
	}
	fromDisk := readBytes() - io0
	syscall.Close(fd)
	fmt.Printf("{\"reader_goid\": %d, \"read_ns\": %d, \"reads\": %d, \"slow_reads\": %d, \"bytes\": %d, \"read_bytes\": %d}\n",
		goid(), total.Nanoseconds(), mb, slow, mb<<20, fromDisk)
}

// readBytes: the bytes this process had fetched from storage (/proc/self/io read_bytes,
// Documentation/filesystems/proc.rst): what the page cache did not hold.
func readBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		panic(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "read_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	panic("no read_bytes in /proc/self/io")
}
