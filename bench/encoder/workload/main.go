// Command workload runs a small, scheduler-heavy Go program under runtime/trace and
// writes the runtime's own trace, the reference for the encoder's bytes per event
// (scripts/bench-encoder.sh). The mix: goroutine ping-pong over unbuffered channels,
// contended mutexes, blocking and fast syscalls, sleeps, allocation (GC), and a few
// user tasks, regions and logs.
//
//	workload -o FILE [-d DURATION]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

func pingPong(ctx context.Context, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			close(ping)
			for range pong {
			}
			return
		default:
		}
		ping <- i
		<-pong
		if i%1000 == 0 {
			trace.Log(ctx, "pingpong", fmt.Sprint(i))
		}
	}
}

func mutexes(stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	var mu sync.Mutex
	var inner sync.WaitGroup
	counter := 0
	for w := 0; w < 4; w++ {
		inner.Add(1)
		go func() {
			defer inner.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				counter++
				buf := make([]byte, 256) // allocation keeps the GC busy
				buf[0] = byte(counter)
				mu.Unlock()
			}
		}()
	}
	inner.Wait()
}

func syscalls(stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}()
	msg := []byte("ping")
	for i := 0; ; i++ {
		select {
		case <-stop:
			w.Close()
			return
		default:
		}
		syscall.Getppid() // fast syscall
		if _, err := w.Write(msg); err != nil {
			panic(err)
		}
		if i%100 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

func main() {
	out := flag.String("o", "runtime.trace", "trace file to write")
	dur := flag.Duration("d", time.Second, "how long to run")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	ctx, task := trace.NewTask(context.Background(), "workload")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(4)
	trace.WithRegion(ctx, "start", func() {
		go pingPong(ctx, stop, &wg)
		go pingPong(ctx, stop, &wg)
		go mutexes(stop, &wg)
		go syscalls(stop, &wg)
	})
	time.Sleep(*dur)
	close(stop)
	wg.Wait()
	task.End()
	trace.Stop()
	if err := f.Close(); err != nil {
		panic(err)
	}
}
