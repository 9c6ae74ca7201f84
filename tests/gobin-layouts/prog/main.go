// gobinprog: a small Go program for gobin's layout, globals and probe-site tests. It is
// built with every Go toolchain on the machine (build_targets.sh) in several link modes;
// it only has to link in the runtime paths a real target uses (goroutines, channels,
// select, mutexes, timers, syscalls), and to run briefly when executed.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func worker(id int, in <-chan int, out chan<- int, mu *sync.Mutex, total *int) {
	for v := range in {
		mu.Lock()
		*total += v
		mu.Unlock()
		select {
		case out <- v * id:
		case <-time.After(time.Second):
		}
	}
}

func main() {
	in, out := make(chan int), make(chan int, 16)
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		go func(id int) { defer wg.Done(); worker(id, in, out, &mu, &total) }(i)
	}
	go func() {
		for i := 0; i < 100; i++ {
			in <- i
		}
		close(in)
	}()
	go func() { wg.Wait(); close(out) }()
	sum := 0
	for v := range out {
		sum += v
	}
	time.Sleep(time.Millisecond)
	fmt.Fprintln(os.Stderr, "gobinprog", total, sum)
}
