package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// midrun: the attach-mid-run case. Background goroutines start working before any
// tracer exists (a paced ping-pong pair, periodic sleepers, goroutines parked forever
// on a channel and on a mutex); the program prints "ready" and waits for SIGUSR1. The
// harness attaches gotraced with --pid, then signals; only then does the program start
// runtime/trace and run the compared part (ping-pong, mutex and spawn work while the
// background keeps going), so both traces must agree on goroutines that already
// existed when they began.
func init() {
	register("midrun", "busy before tracing; after SIGUSR1: runtime/trace + pingpong/mutex/spawn", nil)
}

func midrunMain(ref string, scale int, timing bool) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)

	stopBg := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(1)
	go midrunPacedPingPong(stopBg, &bg)
	for i := 0; i < 3; i++ {
		bg.Add(1)
		go midrunSleeper(stopBg, &bg, i)
	}
	forever := make(chan int)
	for i := 0; i < 4; i++ {
		go midrunParked(forever)
	}
	var held sync.Mutex
	held.Lock()
	for i := 0; i < 2; i++ {
		go midrunLocker(&held)
	}
	time.Sleep(50 * time.Millisecond) // let everything reach its steady state

	fmt.Println("ready")
	if *readyFile != "" {
		check(os.WriteFile(*readyFile, []byte("ready\n"), 0o644))
	}
	select {
	case <-sig:
	case <-time.After(*midrunWait):
		fmt.Fprintln(os.Stderr, "fidelity: midrun: no SIGUSR1 within", *midrunWait)
		os.Exit(1)
	}

	stop := startTrace(ref)
	settle(ref)
	m := startMeasure()
	pingpong(scale)
	mutexPart(scale)
	spawn(scale)
	held.Unlock() // the parked lockers run and exit inside the window
	m.stop()
	settle(ref)
	stop()
	close(stopBg)
	bg.Wait()
	if timing {
		m.print()
	}
}

func midrunPacedPingPong(stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go pingpongEcho(ping, pong, done)
	for i := 0; ; i++ {
		select {
		case <-stop:
			close(ping)
			<-done
			return
		case ping <- i:
		}
		<-pong
		if i%100 == 99 {
			time.Sleep(200 * time.Microsecond)
		}
	}
}

func midrunSleeper(stop <-chan struct{}, wg *sync.WaitGroup, id int) {
	defer wg.Done()
	for {
		select {
		case <-stop:
			return
		default:
		}
		time.Sleep(time.Duration(1+id) * time.Millisecond)
	}
}

func midrunParked(c <-chan int) { <-c }

func midrunLocker(mu *sync.Mutex) {
	mu.Lock()
	sinkInt++
	mu.Unlock()
}
