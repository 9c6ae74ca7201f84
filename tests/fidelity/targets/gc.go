package main

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// gc: a GC-heavy run. Natural cycles (allocation crosses the heap goal: gcTriggerHeap,
// with mark assists from the allocating goroutines and background/idle mark workers),
// forced cycles (runtime.GC: gcTriggerCycle, "GC sweep termination"/"GC mark
// termination" stop-the-worlds and the sweep it finishes itself), GOGC changes
// (debug.SetGCPercent: gcControllerCommit -> HeapGoal, and its own STW) and a large
// live heap kept across cycles so that marking takes long enough for assists.
func init() {
	register("gc", "natural and forced GCs, SetGCPercent, a large live heap, allocation by 4 goroutines", gcWork)
}

var gcKeep [][]byte // the live heap kept across cycles

func gcWork(scale int) {
	old := debug.SetGCPercent(50)
	defer debug.SetGCPercent(old)
	gcKeep = make([][]byte, 0, 4096)
	for i := 0; i < 2048; i++ {
		gcKeep = append(gcKeep, make([]byte, 8<<10)) // 16 MiB live
	}
	for round := 0; round < 3*scale; round++ {
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go gcAllocator(&wg, w, 6000)
		}
		wg.Wait()
		runtime.GC()
		if round%2 == 0 {
			debug.SetGCPercent(100)
		} else {
			debug.SetGCPercent(50)
		}
	}
	gcKeep = nil
	runtime.GC()
}

// gcAllocator allocates short-lived objects of a few size classes and replaces part of
// the live heap, so that cycles start on their own.
func gcAllocator(wg *sync.WaitGroup, id, n int) {
	defer wg.Done()
	var tmp [][]byte
	for i := 0; i < n; i++ {
		b := make([]byte, 64+(i%8)*512)
		tmp = append(tmp, b)
		if len(tmp) == 256 {
			tmp = tmp[:0]
		}
		if i%16 == 0 {
			gcKeepMu.Lock()
			gcKeep[(id*7919+i)%len(gcKeep)] = make([]byte, 8<<10)
			gcKeepMu.Unlock()
		}
	}
}

var gcKeepMu sync.Mutex
