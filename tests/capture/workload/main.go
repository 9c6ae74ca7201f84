// Workload for the capture integration test (tests/capture/capture_test.cc).
//
// Reads commands from stdin, one per line, and answers on stdout:
//   "burst N": starts N goroutines running worker (one `go` statement in burst); each
//              blocks on a channel receive until burst has started all of them and slept
//              50 ms, then calls runtime.Gosched once, makes one getppid system call
//              through syscall.Syscall (entersyscall/exitsyscall) and returns. burst
//              waits for all of them and prints "done N".
//   EOF:       exits 0.
// At start it prints "ready GOMAXPROCS".
// Compatible with Go 1.19 (no newer APIs).
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

//go:noinline
func worker(ch chan int, wg *sync.WaitGroup) {
	defer wg.Done()
	<-ch
	runtime.Gosched()
	syscall.Syscall(syscall.SYS_GETPPID, 0, 0, 0)
}

//go:noinline
func burst(n int) {
	var wg sync.WaitGroup
	ch := make(chan int)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go worker(ch, &wg)
	}
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < n; i++ {
		ch <- i
	}
	wg.Wait()
}

func main() {
	fmt.Printf("ready %d\n", runtime.GOMAXPROCS(0))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var n int
		if _, err := fmt.Sscanf(in.Text(), "burst %d", &n); err != nil {
			fmt.Printf("bad command %q\n", in.Text())
			continue
		}
		burst(n)
		fmt.Printf("done %d\n", n)
	}
}
