package main

import (
	"runtime"
	"sync"
)

// procs: GOMAXPROCS shrinks and grows while goroutines bounce values, with a GC after
// each change. procresize (runtime/proc.go) destroys the Ps beyond the new count and
// makes new ones when it grows again; a collection in between may free the dropped Ps,
// so a new P can sit at a dropped one's address with another id. The trace's
// ProcsChange events and the P of every event must match the in-process trace's
// (gotraced caches a thread's P id and empties that cache at every procresize:
// proto/bpf_config.h p_id_cache).
func init() {
	register("procs", "GOMAXPROCS 4, 1, 3, 2, 4 with GCs between, 4 pairs of goroutines bouncing values", procsWork)
}

func procsWork(scale int) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	for round := 0; round < 2*scale; round++ {
		for _, n := range []int{4, 1, 3, 2, 4} {
			runtime.GOMAXPROCS(n)
			runtime.GC()
			var wg sync.WaitGroup
			for pair := 0; pair < 4; pair++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					pingpongRounds(500)
				}()
			}
			wg.Wait()
		}
	}
}

// pingpongRounds: n round trips between this goroutine and a partner.
func pingpongRounds(n int) {
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go pingpongEcho(ping, pong, done)
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-done
}
