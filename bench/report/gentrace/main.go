// gentrace OUT SIZE_MB: a Go execution trace of about SIZE_MB written by runtime/trace
// itself, for scripts/bench-report.sh's 1 GB case: Go's reader (x/exp/trace) rejects a
// file tiled from a recording (goroutine and P statuses do not carry across its seams),
// so a big file both readers read has to be one long trace. The workload makes the
// events a server's trace is made of, fast: goroutines that block and unblock on
// channels (ping-pong pairs), short-lived goroutines created and ending, syscalls
// (writes to /dev/null), sleeps, and allocation for GC cycles.
package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/trace"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// counter counts the bytes the tracer has written.
type counter struct {
	f *os.File
	n atomic.Int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	c.n.Add(int64(n))
	return n, err
}

var sink [][]byte

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gentrace OUT SIZE_MB")
		os.Exit(2)
	}
	mb, err := strconv.Atoi(os.Args[2])
	if err != nil || mb <= 0 {
		fmt.Fprintln(os.Stderr, "gentrace: SIZE_MB must be a positive integer")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	c := &counter{f: f}
	before := readMetrics()
	if err := trace.Start(c); err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	for i := 0; i < 16; i++ { // ping-pong pairs: block, unblock, run
		a, b := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				a <- n
				<-b
			}
			close(a)
		}()
		go func() {
			defer wg.Done()
			for n := range a {
				b <- n
			}
		}()
	}
	wg.Add(1)
	go func() { // short-lived goroutines, syscalls, sleeps, garbage
		defer wg.Done()
		buf := []byte("x")
		for !stop.Load() {
			var inner sync.WaitGroup
			for j := 0; j < 32; j++ {
				inner.Add(1)
				go func() {
					defer inner.Done()
					devnull.Write(buf)
					sink = append(sink[:0], make([]byte, 64<<10))
				}()
			}
			inner.Wait()
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for c.n.Load() < int64(mb)<<20 {
		time.Sleep(20 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	trace.Stop()
	after := readMetrics()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d MiB\n", os.Args[1], c.n.Load()>>20)
	// The runtime's own counters over the traced window, for checking the report's figures
	// (docs/report.md "Checked against"): the assists' CPU time is what the runtime measures
	// inside gcAssistAlloc1 (runtime/mgcmark.go), not the time between the trace's
	// GCMarkAssistBegin and End, which also holds the waits in gcParkAssist and for a P.
	for i, s := range before {
		fmt.Printf("metric %s %s\n", s.Name, delta(s.Value, after[i].Value))
	}
}

var metricNames = []string{
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/mark/dedicated:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
}

func readMetrics() []metrics.Sample {
	s := make([]metrics.Sample, len(metricNames))
	for i, n := range metricNames {
		s[i].Name = n
	}
	metrics.Read(s)
	return s
}

// delta: after - before, a float64, a uint64 or a histogram's count and sum of bucket midpoints.
func delta(b, a metrics.Value) string {
	switch a.Kind() {
	case metrics.KindFloat64:
		return strconv.FormatFloat(a.Float64()-b.Float64(), 'f', 6, 64)
	case metrics.KindUint64:
		return strconv.FormatUint(a.Uint64()-b.Uint64(), 10)
	case metrics.KindFloat64Histogram:
		ha, hb := a.Float64Histogram(), b.Float64Histogram()
		var n uint64
		for i := range ha.Counts {
			n += ha.Counts[i] - hb.Counts[i]
		}
		return fmt.Sprintf("%d observations", n)
	}
	return "?"
}
