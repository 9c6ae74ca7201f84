// The start-up bench's program: prints a line and exits at once, so what a run costs
// is process start and exit (and, traced, the tracer's start-up and stop).
//
//	hello [-trace FILE] [-exit-stamp FILE]
//
// -trace runs runtime/trace in the process around the print (the in-process
// comparison); -exit-stamp writes the wall clock (Unix ns) just before exit, so the
// bench can tell how long a tracer took to end after its program did.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/trace"
	"strconv"
	"time"
)

func main() {
	traceOut := flag.String("trace", "", "write a runtime/trace to this file")
	stamp := flag.String("exit-stamp", "", "write the Unix ns time of exit to this file")
	flag.Parse()
	var tf *os.File
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		tf = f
	}
	fmt.Println("hello, world")
	if tf != nil {
		trace.Stop()
		_ = tf.Close()
	}
	if *stamp != "" {
		_ = os.WriteFile(*stamp, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o644)
	}
}
