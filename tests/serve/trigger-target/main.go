// trigger-target: provokes one of serve's trigger kinds (daemon/service/triggers.h),
// over and over, for tests/serve/triggers.sh.
//
//	-mode stw      a goroutine spins -spin long in a loop with no call (no synchronous
//	               preemption point; run with GODEBUG=asyncpreemptoff=1 so the signal-based
//	               one is off too) while another calls runtime.GC: stopTheWorldWithSema
//	               waits for the spinner's P, so the STW range lasts about -spin.
//	-mode syscall  syscall.Nanosleep of -spin: one goroutine syscall that long.
//	-mode spin     two goroutines burn CPU (for a CPU-throttled cgroup).
//	-mode latency  GOMAXPROCS(1): a spinner (preempted every 10 ms by sysmon) and a
//	               goroutine woken by a 1 ms ticker, which waits runnable behind it.
package main

import (
	"flag"
	"runtime"
	"syscall"
	"time"
)

var sink uint64

func spinFor(d time.Duration) {
	// A loop without calls: the compiler puts no preemption check in it.
	n := uint64(d/time.Nanosecond) / 2
	x := sink
	for i := uint64(0); i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func main() {
	mode := flag.String("mode", "stw", "stw | syscall | spin | latency")
	spin := flag.Duration("spin", 40*time.Millisecond, "how long each provocation lasts")
	flag.Parse()
	switch *mode {
	case "stw":
		for {
			done := make(chan bool)
			go func() { spinFor(*spin); done <- true }()
			time.Sleep(time.Millisecond)
			runtime.GC()
			<-done
			time.Sleep(300 * time.Millisecond)
		}
	case "syscall":
		for {
			ts := syscall.NsecToTimespec(int64(*spin))
			syscall.Nanosleep(&ts, nil)
			time.Sleep(200 * time.Millisecond)
		}
	case "spin":
		for i := 0; i < 2; i++ {
			go func() {
				for {
					spinFor(time.Millisecond)
				}
			}()
		}
		select {}
	case "latency":
		runtime.GOMAXPROCS(1)
		go func() {
			for {
				spinFor(time.Millisecond)
			}
		}()
		t := time.NewTicker(time.Millisecond)
		for range t.C {
		}
	}
}
