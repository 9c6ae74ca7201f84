package main

import "runtime"

// select: one consumer selects over four producers' channels and a quit channel
// (runtime/select.go selectgo parks with waitReasonSelect, trace reason "select"); a
// poller uses select-with-default and yields (runtime.Gosched) when nothing is ready.
func init() {
	register("select", "select over 4 channels + quit, and select with default", selects)
}

func selects(scale int) {
	const producers = 4
	n := 3000 * scale
	chans := make([]chan int, producers)
	for i := range chans {
		chans[i] = make(chan int)
	}
	quit := make(chan struct{})
	for i := 0; i < producers; i++ {
		go selectProducer(chans[i], i, n)
	}
	polled := make(chan int, 16)
	pollDone := make(chan int)
	go selectPoller(polled, pollDone, n)
	go func() {
		for i := 0; i < n; i++ {
			polled <- i
			if i%64 == 0 {
				runtime.Gosched()
			}
		}
	}()
	got := 0
	for got < producers*n {
		select {
		case <-chans[0]:
			got++
		case <-chans[1]:
			got++
		case <-chans[2]:
			got++
		case <-chans[3]:
			got++
		case <-quit:
			return
		}
	}
	if <-pollDone != n {
		panic("select: poller lost items")
	}
}

func selectProducer(c chan<- int, id, n int) {
	for i := 0; i < n; i++ {
		c <- id
	}
}

func selectPoller(in <-chan int, done chan<- int, n int) {
	got := 0
	for got < n {
		select {
		case <-in:
			got++
		default:
			runtime.Gosched()
		}
	}
	done <- got
}
