// The kernel matrix's guest target (tests/kernels/): a small static Go program that gives
// every probe class gotraced places something to see inside a qemu guest, and little
// else, because the guest runs under TCG (slow) and the matrix has a time budget.
//
//	target -seconds 3   run the workload for about 3 s, then exit (launch mode)
//	target -forever     run it until killed (the --pid attach)
//
// Each round: goroutines created and ended, blocks on unbuffered channels (send and
// receive), a mutex, a WaitGroup, a select with a timer, sleeps, file syscalls, and every
// few rounds an explicit runtime.GC (GC start/end, STW, sweep).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

var sink [][]byte

func worker(id int, in <-chan int, out chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	for v := range in {
		out <- v * id
	}
}

func round(r int, mu *sync.Mutex, total *int) {
	in := make(chan int)
	out := make(chan int, 64)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(i, in, out, &wg)
	}
	for i := 0; i < 32; i++ {
		in <- i
	}
	close(in)
	wg.Wait()
	close(out)
	for v := range out {
		mu.Lock()
		*total += v
		mu.Unlock()
	}
	// Syscalls: open/read/close of a procfs file and a write to /dev/null.
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		if f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
			f.Write(b)
			f.Close()
		}
	}
	// Some garbage, so the GC has work.
	for i := 0; i < 64; i++ {
		sink = append(sink, make([]byte, 4096))
	}
	if len(sink) > 2048 {
		sink = nil
	}
	if r%25 == 24 {
		runtime.GC()
	}
	select {
	case <-time.After(time.Millisecond):
	case <-make(chan int):
	}
	runtime.Gosched()
	time.Sleep(2 * time.Millisecond)
}

func main() {
	seconds := flag.Float64("seconds", 3, "run the workload this long, then exit")
	forever := flag.Bool("forever", false, "run until killed")
	flag.Parse()
	var mu sync.Mutex
	total := 0
	end := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	rounds := 0
	for ; *forever || time.Now().Before(end) || rounds < 50; rounds++ {
		round(rounds, &mu, &total)
	}
	runtime.GC()
	fmt.Printf("target: %d rounds, total %d\n", rounds, total)
}
