// A program that sets pprof labels per request (pprof.Do, nested Do, goroutines that
// inherit them, SetGoroutineLabels) and writes, into its own runtime/trace as user logs
// of category "truth", which label set the goroutine has at that moment ("k=v k2=v2",
// keys sorted, as gotraced's "gotraced: labels" logs say it). Each truth log is written
// only after the goroutine blocked or yielded since its labels last changed, so it
// belongs to a running interval that started with that set: the interval gotraced
// attributes a set to (tests/suites/57-labels.sh compares them).
//
//	labelstarget -o ref.trace [-n 400] [-unusual]
//
// -unusual: label sets with empty values, 1 KB values, bytes that are not UTF-8 and
// 100 labels (no truth: the trace and the report must stay whole).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var truths int64

func truth(ctx context.Context, want string) {
	trace.Log(ctx, "truth", want)
	atomic.AddInt64(&truths, 1)
}

// pause ends the goroutine's running interval: the next log is in a new one.
func pause(k int) {
	if k%2 == 0 {
		runtime.Gosched()
	} else {
		time.Sleep(20 * time.Microsecond)
	}
}

var routes = []string{"/api/orders", "/api/users", "/healthz", "/api/orders/{id}"}

func request(i int) {
	ctx := context.Background()
	route, tenant := routes[i%len(routes)], strconv.Itoa(i%7)
	want := "route=" + route + " tenant=" + tenant
	pprof.Do(ctx, pprof.Labels("tenant", tenant, "route", route), func(ctx context.Context) {
		for s := 0; s < 3; s++ {
			pause(s)
			truth(ctx, want)
		}
		if i%3 == 0 { // nested: the sets merge, then the outer one is back
			pprof.Do(ctx, pprof.Labels("step", "inner"), func(ctx context.Context) {
				pause(1)
				truth(ctx, "route="+route+" step=inner tenant="+tenant)
			})
			pause(0)
			truth(ctx, want)
		}
		done := make(chan struct{})
		go func() { // inherits the labels at creation (runtime/proc.go newproc1)
			truth(ctx, want)
			pause(1)
			truth(ctx, want)
			close(done)
		}()
		<-done
		pause(0)
		truth(ctx, want)
	})
	pause(1)
	truth(ctx, "") // pprof.Do restored the caller's (no) labels
	if i%5 == 0 {  // SetGoroutineLabels directly
		lctx := pprof.WithLabels(ctx, pprof.Labels("job", "batch-"+strconv.Itoa(i)))
		pprof.SetGoroutineLabels(lctx)
		pause(0)
		truth(ctx, "job=batch-"+strconv.Itoa(i))
		pprof.SetGoroutineLabels(ctx)
		pause(1)
		truth(ctx, "")
	}
}

func unusual() {
	hundred := make([]string, 0, 200)
	for i := 0; i < 100; i++ {
		hundred = append(hundred, fmt.Sprintf("key%03d", i), strconv.Itoa(i))
	}
	sets := []pprof.LabelSet{
		pprof.Labels("empty", ""),
		pprof.Labels("big", strings.Repeat("v", 1024), "small", "s"),
		pprof.Labels("bytes", "\xff\xfe\x00\x01ok", "quote", "a \"b\" = c\\d\n"),
		pprof.Labels("", "empty key"),
		pprof.Labels(hundred...),
	}
	var wg sync.WaitGroup
	for r := 0; r < 20; r++ {
		for _, set := range sets {
			wg.Add(1)
			go pprof.Do(context.Background(), set, func(ctx context.Context) {
				defer wg.Done()
				pause(0)
				pause(1)
				trace.Log(ctx, "unusual", "done")
			})
		}
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond) // as in main
}

func main() {
	out := flag.String("o", "", "write this program's own runtime/trace here")
	n := flag.Int("n", 400, "requests")
	odd := flag.Bool("unusual", false, "unusual label sets instead of requests")
	flag.Parse()
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		defer trace.Stop()
	}
	if *odd {
		unusual()
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := 0; i < *n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			request(i)
		}(i)
	}
	wg.Wait()
	fmt.Printf("truths %d\n", atomic.LoadInt64(&truths))
	// gotraced reads each label set from this process's memory a few milliseconds after
	// the start that names it: stay a moment, as a server would.
	time.Sleep(300 * time.Millisecond)
}
