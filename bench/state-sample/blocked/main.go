// The state sampler bench's target (scripts/bench-state-sample.sh): -n goroutines blocked on
// a channel receive for good, three in a select, one making a file syscall every 10 ms,
// and a GC every 500 ms (so g.waitsince is set and the longest waits are listed).
package main

import (
	"flag"
	"os"
	"runtime"
	"time"
)

func main() {
	n := flag.Int("n", 10000, "goroutines blocked on a channel")
	flag.Parse()
	never := make(chan int)
	for i := 0; i < *n; i++ {
		go func() { <-never }()
	}
	for i := 0; i < 3; i++ {
		go func() {
			for {
				select {
				case <-never:
				case <-time.After(time.Hour):
				}
			}
		}()
	}
	go func() {
		buf := make([]byte, 64)
		for {
			f, _ := os.Open("/proc/self/stat")
			f.Read(buf)
			f.Close()
			time.Sleep(10 * time.Millisecond)
		}
	}()
	for {
		time.Sleep(500 * time.Millisecond)
		runtime.GC()
	}
}
