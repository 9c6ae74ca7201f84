//go:build cgo

package main

/*
#include <unistd.h>

// A tiny C function that goes through the cgo call path (runtime/cgocall.go cgocall:
// entersyscall/exitsyscall around asmcgocall, so it appears as a syscall in the
// trace). Half the calls sleep briefly, half only ask for the pid.
static int fidelity_cgo_call(int sleep_us) {
	if (sleep_us > 0) usleep(sleep_us);
	return (int)getpid();
}
*/
import "C"

import "sync"

func init() {
	register("cgo", "4 goroutines x 500 cgo calls (getpid, or usleep 50us)", cgoCalls)
}

func cgoCalls(scale int) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go cgoWorker(&wg, 500*scale)
	}
	wg.Wait()
}

func cgoWorker(wg *sync.WaitGroup, n int) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		us := 0
		if i%2 == 1 {
			us = 50
		}
		if C.fidelity_cgo_call(C.int(us)) <= 0 {
			panic("cgo: bad pid")
		}
	}
}
