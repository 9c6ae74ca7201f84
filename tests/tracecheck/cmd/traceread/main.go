// Command traceread reads a Go execution trace with golang.org/x/exp/trace and nothing
// else: every event, counted. The reference reader of bench/report (scripts/bench-report.sh):
// `gotraced report` is timed against what Go's own reader costs on the same file.
//
//	traceread FILE
//
// Prints "events N" and exits 0, or the parser's error and exits 1.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: traceread FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	r, err := trace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := 0
	for {
		_, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n++
	}
	fmt.Printf("events %d\n", n)
}
