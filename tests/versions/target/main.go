// Command target is the version-matrix workload (tests/suites/70-version-matrix.sh):
// one short, fixed amount of work that touches every event class gotraced records,
// built by every Go toolchain on the machine (go.mod says `go 1.19`, so nothing newer
// than Go 1.19's language and library is used) and in every flavour (default, -s -w,
// PIE, cgo). It traces itself with runtime/trace (-o FILE), so each run has an
// in-process reference for tracecompare.
//
//	target -o ref.trace [-wait 2s]
//
// Work, in order: goroutine creation, channel ping-pong (block/unblock on chan
// send/recv), mutex contention (sync), Gosched, file writes (syscalls), sleeps
// (timers), runtime.GC (GC, STW, heap metrics), user annotations (NewTask, WithRegion,
// Log: these reach the runtime even when tracing is off, runtime/trace/annotation.go),
// and, in cgo builds, calls into C (cgo.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "write the in-process runtime/trace here (empty: no in-process trace)")
	wait := flag.Duration("wait", 0, "print \"ready\", then sleep in short steps until SIGUSR1 or this long "+
		"before starting (gotraced --pid attaches meanwhile; its self-check needs goroutine transitions)")
	flag.Parse()
	if *wait > 0 {
		// Until SIGUSR1 (the test has seen gotraced attach) or the timeout.
		go1 := make(chan os.Signal, 1)
		signal.Notify(go1, syscall.SIGUSR1)
		fmt.Println("ready")
	waiting:
		for end := time.Now().Add(*wait); time.Now().Before(end); {
			select {
			case <-go1:
				break waiting
			default:
				time.Sleep(2 * time.Millisecond)
			}
		}
		signal.Stop(go1)
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "target:", err)
			os.Exit(1)
		}
		if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, "target: trace.Start:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer trace.Stop()
	}
	// Let both tracers see a quiet start (the reference's first generation).
	time.Sleep(5 * time.Millisecond)
	ctx, task := trace.NewTask(context.Background(), "matrix")
	trace.Log(ctx, "phase", "start")
	trace.WithRegion(ctx, "pingpong", func() { pingpong(1500) })
	trace.WithRegion(ctx, "mutex", func() { mutexes(4, 400) })
	trace.WithRegion(ctx, "spawn", func() { spawn(40) })
	trace.WithRegion(ctx, "syscalls", func() { syscalls(400) })
	trace.WithRegion(ctx, "sleep", func() { sleeps(5) })
	trace.WithRegion(ctx, "gc", func() {
		sink = make([][]byte, 0, 256)
		for i := 0; i < 256; i++ {
			sink = append(sink, make([]byte, 4096))
		}
		sink = nil
		// One cycle: runtime.GC also Goscheds until sweeping is done (mgc.go GC),
		// thousands of GoStop events on its own.
		runtime.GC()
	})
	trace.WithRegion(ctx, "cgo", func() { cgoCalls(50) })
	trace.Log(ctx, "phase", "end")
	task.End()
	time.Sleep(5 * time.Millisecond)
}

var sink [][]byte

// pingpong: two goroutines hand a token back and forth (GoBlock "chan receive",
// GoUnblock with the sender's stack).
func pingpong(n int) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-pong
}

// mutexes: k goroutines contend for one mutex (GoBlock "sync").
func mutexes(k, n int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for g := 0; g < k; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				mu.Lock()
				total++
				if i%16 == 0 {
					runtime.Gosched() // holding the lock: the others block
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if total != k*n {
		panic("mutex lost an increment")
	}
}

// spawn: short-lived goroutines (GoCreate with the creator's stack, GoDestroy).
func spawn(n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.Gosched()
			_ = i
		}(i)
	}
	wg.Wait()
}

// syscalls: blocking writes to /dev/null through os.File (entersyscall/exitsyscall).
func syscalls(n int) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	buf := []byte("gotraced version matrix\n")
	for i := 0; i < n; i++ {
		if _, err := f.Write(buf); err != nil {
			panic(err)
		}
	}
}

// sleeps: timers (GoBlock "sleep", GoUnblock from the timer with no stack).
func sleeps(n int) {
	for i := 0; i < n; i++ {
		time.Sleep(time.Millisecond)
	}
}
