// A target with a known stall of each kind, which reads its own runtime/metrics at the
// start and at the end of the window it stalls in and prints them as one JSON line, so
// tests/suites/56-report.sh can check `gotraced report`'s figures against the runtime's:
//
//	target -mode mutex|hog|gc|leak|all [-trace FILE] [-out FILE]
//
// mutex: 8 goroutines take one sync.Mutex 250 times each and hold it 100 us: the
// waiters block (/sync/mutex/wait/total:seconds, Go 1.20+).
// hog:   GOMAXPROCS 1, a goroutine spinning 400 ms (preempted every 10 ms by sysmon)
// while 4 goroutines wake every 2 ms: they wait runnable (/sched/latencies:seconds).
// gc:    30 runtime.GC() calls (/gc/cycles/total:gc-cycles; the GC's stop-the-world
// pauses: /sched/pauses/total/gc:seconds, /gc/pauses:seconds before Go 1.22).
// leak:  1000 goroutines blocked forever on a channel (/sched/goroutines:goroutines).
// throttle: the process moves itself into -cgroup DIR (a cpu cgroup with a quota), then
// two goroutines spin for 1 s while four wake every 2 ms: the threads are throttled and
// the wakers wait runnable (the kernel's side of the report says so, from gotraced's
// kernel view).
// With -trace, the program records itself with runtime/trace over the same window.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/trace"
	"sync"
	"time"
)

var names = []string{
	"/sched/latencies:seconds",
	"/sched/pauses/total/gc:seconds",
	"/gc/pauses:seconds",
	"/sync/mutex/wait/total:seconds",
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines:goroutines",
}

type hist struct {
	Counts  []uint64  `json:"counts"`
	Buckets []float64 `json:"buckets"`
}

// read returns the metrics this Go has (a name it lacks is left out).
func read() map[string]interface{} {
	known := map[string]bool{}
	for _, d := range metrics.All() {
		known[d.Name] = true
	}
	var s []metrics.Sample
	for _, n := range names {
		if known[n] {
			s = append(s, metrics.Sample{Name: n})
		}
	}
	metrics.Read(s)
	out := map[string]interface{}{}
	for _, x := range s {
		switch x.Value.Kind() {
		case metrics.KindUint64:
			out[x.Name] = x.Value.Uint64()
		case metrics.KindFloat64:
			out[x.Name] = x.Value.Float64()
		case metrics.KindFloat64Histogram:
			h := x.Value.Float64Histogram()
			b := make([]float64, len(h.Buckets))
			for i, v := range h.Buckets {
				// JSON has no infinities: the open ends become +-1e9 s.
				if v > 1e9 {
					v = 1e9
				} else if v < -1e9 {
					v = -1e9
				}
				b[i] = v
			}
			out[x.Name] = hist{append([]uint64(nil), h.Counts...), b}
		}
	}
	return out
}

func mutex() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 250; j++ {
				mu.Lock()
				t := time.Now()
				for time.Since(t) < 100*time.Microsecond {
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

var sink uint64

// wakers starts 4 goroutines that wake every 2 ms until stop is closed: each wake makes one
// runnable, and it waits for a P (hog) or for a CPU (throttle).
func wakers(wg *sync.WaitGroup, stop <-chan struct{}) {
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
	}
}

// spin burns CPU for d without a call the scheduler could switch at.
func spin(d time.Duration) {
	t := time.Now()
	x := uint64(1)
	for time.Since(t) < d {
		for k := 0; k < 1000; k++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink += x
}

func hog() {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wakers(&wg, stop)
	done := make(chan struct{})
	go func() {
		spin(400 * time.Millisecond)
		close(done)
	}()
	<-done
	close(stop)
	wg.Wait()
}

func gc() {
	for i := 0; i < 30; i++ {
		runtime.GC()
	}
}

var leaked = make(chan int)

func leak() {
	for i := 0; i < 1000; i++ {
		go func() { <-leaked }()
	}
	time.Sleep(50 * time.Millisecond) // they all block
}

func throttle() {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wakers(&wg, stop)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spin(time.Second)
		}()
	}
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
}

func main() {
	mode := flag.String("mode", "all", "mutex, hog, gc, leak, all (these four) or throttle")
	traceFile := flag.String("trace", "", "record the window with runtime/trace into this file")
	out := flag.String("out", "", "write the metrics here (default stdout)")
	cgroup := flag.String("cgroup", "", "move this process into this cgroup directory first")
	flag.Parse()
	if *cgroup != "" {
		if err := os.WriteFile(*cgroup+"/cgroup.procs", []byte(fmt.Sprint(os.Getpid())), 0o644); err != nil {
			panic(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // a tracer that attached at exec is up
	before := read()
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			panic(err)
		}
	}
	start := time.Now()
	run := map[string]func(){"mutex": mutex, "hog": hog, "gc": gc, "leak": leak, "throttle": throttle}
	if *mode == "all" {
		for _, m := range []string{"mutex", "hog", "gc", "leak"} {
			run[m]()
		}
	} else if f, ok := run[*mode]; ok {
		f()
	} else {
		fmt.Fprintln(os.Stderr, "unknown mode", *mode)
		os.Exit(2)
	}
	after := read()
	window := time.Since(start)
	if *traceFile != "" {
		trace.Stop()
	}
	b, _ := json.Marshal(map[string]interface{}{
		"go": runtime.Version(), "mode": *mode, "window_ns": window.Nanoseconds(), "before": before, "after": after,
	})
	if *out == "" {
		fmt.Println(string(b))
	} else if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}
