package main

import (
	"sync"
	"time"
)

// timers: time.Sleep (runtime/time.go timeSleep, trace reason "sleep"), timers
// stopped and reset, time.After in a select, and a ticker.
func init() {
	register("timers", "time.Sleep, Timer Reset/Stop, time.After, Ticker", timers)
}

func timers(scale int) {
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go sleeper(&wg, g, 40*scale)
	}
	wg.Add(1)
	go timerUser(&wg, 100*scale)
	wg.Add(1)
	go tickerUser(&wg, 150*scale)
	wg.Wait()
}

func sleeper(wg *sync.WaitGroup, id, n int) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		time.Sleep(time.Duration(300+100*((id+i)%4)) * time.Microsecond)
	}
}

func timerUser(wg *sync.WaitGroup, n int) {
	defer wg.Done()
	t := time.NewTimer(time.Hour)
	wake := make(chan struct{})
	for i := 0; i < n; i++ {
		// A timer that is always stopped before it fires, then reset to fire soon.
		t.Stop()
		t.Reset(200 * time.Microsecond)
		select {
		case <-t.C:
		case <-wake:
		case <-time.After(time.Second):
			panic("timers: timer did not fire")
		}
	}
	t.Stop()
}

func tickerUser(wg *sync.WaitGroup, n int) {
	defer wg.Done()
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for i := 0; i < n; i++ {
		<-tk.C
	}
}
