// serve-target: a small, steady Go workload for tests/suites/60-serve.sh — goroutines
// that block on channels and timers, make syscalls, and come and go — light enough that
// ten of them run beside the daemon on a 2-core machine.
//
//	serve-target [-rate N] [-workers N] [-exit-after D]
package main

import (
	"flag"
	"os"
	"sync"
	"time"
)

func main() {
	rate := flag.Int("rate", 100, "rounds per second")
	workers := flag.Int("workers", 4, "long-lived worker goroutines")
	exitAfter := flag.Duration("exit-after", 0, "exit after this long (0: run until killed)")
	flag.Parse()

	jobs := make(chan int)
	results := make(chan int, 16)
	for i := 0; i < *workers; i++ {
		go func() {
			for j := range jobs {
				results <- j * 2
			}
		}()
	}
	go func() {
		for range results {
		}
	}()

	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var garbage [][]byte
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	defer tick.Stop()
	var deadline <-chan time.Time
	if *exitAfter > 0 {
		deadline = time.After(*exitAfter)
	}
	for n := 0; ; n++ {
		select {
		case <-tick.C:
		case <-deadline:
			return
		}
		jobs <- n
		// A short-lived goroutine per round: created, blocks on a mutex, ends.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			garbage = append(garbage, make([]byte, 4096))
			if len(garbage) > 256 {
				garbage = garbage[:0]
			}
			mu.Unlock()
		}()
		wg.Wait()
		devnull.Write([]byte("x")) // a syscall
	}
}
