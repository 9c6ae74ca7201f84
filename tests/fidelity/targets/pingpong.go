package main

// pingpong: two goroutines bounce a value over two unbuffered channels. Every round
// trip is two "chan send"/"chan receive" blocks and two unblocks (runtime/chan.go
// chansend/chanrecv -> gopark(waitReasonChanReceive/Send) and goready), the densest
// scheduler-bound pattern there is.
func init() {
	register("pingpong", "two goroutines, 20k round trips over unbuffered channels", pingpong)
}

func pingpong(scale int) {
	n := 20000 * scale
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go pingpongEcho(ping, pong, done)
	for i := 0; i < n; i++ {
		ping <- i
		if v := <-pong; v != i+1 {
			panic("pingpong: wrong value")
		}
	}
	close(ping)
	<-done
}

func pingpongEcho(ping <-chan int, pong chan<- int, done chan<- struct{}) {
	for v := range ping {
		pong <- v + 1
	}
	close(done)
}
