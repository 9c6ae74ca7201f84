// An idle Go service for bench/host: wakes every 100 ms and writes one byte to
// /dev/null (a goroutine syscall through entersyscall), ~10 syscalls a second besides the
// runtime's own, as the idle processes of issue 28. Prints "ready" once running; with
// -life D it exits after D (the attach-cost phase: short-lived processes of one binary).
// Compatible with Go 1.19.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	life := flag.Duration("life", 0, "exit after this long (0: run until killed)")
	flag.Parse()
	f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	var end <-chan time.Time
	if *life > 0 {
		end = time.After(*life)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	for {
		select {
		case <-tick.C:
			f.Write([]byte{0})
		case <-end:
			return
		}
	}
}
