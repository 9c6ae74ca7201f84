// Command tracegen runs a small, deterministic-ish workload that exercises
// every event class gotraced must reproduce (goroutine create/exit, channel,
// select, mutex, cond, sleep, network and syscall blocking, preemption
// points, GC, user tasks/regions/logs) while runtime/trace records it.
//
//	tracegen -o ref.trace [-fr snap.trace [-fr-age D]] [-rounds N] [-cpuprofile=false]
//	         [-delay D] [-hold D]
//
// It is also a ready target for end-to-end fidelity tests: run it under
// gotraced (launch mode, or --pid during -delay) and compare gotraced's file
// with ref.trace using tracecompare.
//
// -fr (Go 1.25+ only) also runs runtime/trace.FlightRecorder beside
// trace.Start and writes its snapshot taken mid-run: a second trace of the
// same execution covering a different window, used to test tracecompare.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"time"
)

var sink [][]byte

func main() {
	out := flag.String("o", "", "write the runtime/trace output here")
	fr := flag.String("fr", "", "write a mid-run flight-recorder snapshot here (Go 1.25+)")
	rounds := flag.Int("rounds", 3, "workload rounds")
	cpu := flag.Bool("cpuprofile", true, "run the CPU profiler (to io.Discard) so the trace holds CPU samples")
	delay := flag.Duration("delay", 0, "sleep this long before trace.Start (time for gotraced --pid to attach)")
	hold := flag.Duration("hold", 0, "sleep this long after trace.Stop before exiting")
	frAge := flag.Duration("fr-age", 20*time.Millisecond, "flight recorder MinAge (with GODEBUG=traceadvanceperiod=NS for short generations)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: tracegen -o FILE [-fr FILE] [-rounds N]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	check(err)
	snap := func() {}
	if *fr != "" {
		var stop func()
		snap, stop, err = startFlightRecorder(*fr, *frAge)
		check(err)
		defer stop()
	}
	time.Sleep(*delay)
	if *cpu {
		// The tracer records the profiler's samples as StackSample events.
		check(pprof.StartCPUProfile(io.Discard))
		defer pprof.StopCPUProfile()
	}
	check(trace.Start(f))
	for r := 0; r < *rounds; r++ {
		round(r)
		if r == *rounds*2/3 {
			snap()
		}
	}
	trace.Stop()
	check(f.Close())
	time.Sleep(*hold)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
}

func round(r int) {
	ctx, task := trace.NewTask(context.Background(), fmt.Sprintf("round-%d", r))
	defer task.End()
	trace.Log(ctx, "round", fmt.Sprint(r))
	trace.WithRegion(ctx, "pipeline", func() { pipeline(ctx) })
	trace.WithRegion(ctx, "locks", locks)
	trace.WithRegion(ctx, "selects", selects)
	trace.WithRegion(ctx, "sleepers", sleepers)
	trace.WithRegion(ctx, "syscalls", syscalls)
	trace.WithRegion(ctx, "network", network)
	trace.WithRegion(ctx, "gc", gc)
	extras(ctx) // version-specific (iter.Pull coroutines on 1.23+)
}

// pipeline: producer -> N workers -> collector over unbuffered channels
// ("chan send" / "chan receive" blocks, goroutine create and exit).
func pipeline(ctx context.Context) {
	in, outc := make(chan int), make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for v := range in {
				if v%50 == 0 {
					trace.Logf(ctx, "worker", "w%d v%d", w, v)
				}
				outc <- v * v
			}
		}(w)
	}
	go func() { wg.Wait(); close(outc) }()
	go func() {
		for i := 0; i < 400; i++ {
			in <- i
		}
		close(in)
	}()
	sum := 0
	for v := range outc {
		sum += v
	}
	_ = sum
}

// locks: contended sync.Mutex ("sync") and sync.Cond ("sync.(*Cond).Wait").
func locks() {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := 0
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				mu.Lock()
				ready++
				if j%20 == 0 {
					runtime.Gosched()
				}
				mu.Unlock()
			}
			mu.Lock()
			for ready < 800 {
				cond.Wait()
			}
			mu.Unlock()
			cond.Broadcast()
		}()
	}
	wg.Wait()
}

// selects: select over several channels plus a timer ("select").
func selects() {
	a, b, done := make(chan int), make(chan int), make(chan struct{})
	go func() {
		for i := 0; i < 100; i++ {
			if i%2 == 0 {
				a <- i
			} else {
				b <- i
			}
		}
		close(done)
	}()
	for {
		select {
		case <-a:
		case <-b:
		case <-time.After(time.Second):
		case <-done:
			return
		}
	}
}

// sleepers: time.Sleep ("sleep") and a blocked-forever-until-closed waiter.
func sleepers() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(i+1) * 200 * time.Microsecond)
		}(i)
	}
	wg.Wait()
}

// syscalls: file writes and reads, and a blocking pipe read that makes the
// runtime hand the P off (GoSyscallEndBlocked path).
func syscalls() {
	f, err := os.CreateTemp("", "tracegen")
	check(err)
	defer os.Remove(f.Name())
	buf := make([]byte, 4096)
	for i := 0; i < 50; i++ {
		_, err := f.Write(buf)
		check(err)
	}
	check(f.Sync())
	check(f.Close())
	pr, pw, err := os.Pipe()
	check(err)
	go func() {
		time.Sleep(3 * time.Millisecond)
		pw.Write([]byte("x"))
		pw.Close()
	}()
	_, _ = io.ReadAll(pr)
	pr.Close()
	for i := 0; i < 20; i++ {
		_ = os.Getpid()
		_, _ = os.Stat("/")
	}
}

// network: a loopback TCP echo ("network" blocks via the netpoller).
func network() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	check(err)
	defer c.Close()
	msg := []byte("ping")
	reply := make([]byte, 4)
	for i := 0; i < 20; i++ {
		_, err := c.Write(msg)
		check(err)
		_, err = io.ReadFull(c, reply)
		check(err)
	}
}

// gc: allocation plus forced collections (GC ranges, STW ranges, heap
// metrics, mark assists).
func gc() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				b := make([]byte, 1024)
				mu.Lock()
				sink = append(sink, b)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	runtime.GC()
	sink = nil
	runtime.GC()
}
