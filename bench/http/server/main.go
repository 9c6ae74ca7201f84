// The HTTP bench's server: a plain net/http server whose handler does what a small JSON
// endpoint does (decode a query parameter, build a reply, encode it), so a request costs
// the runtime a few goroutine switches, a network poll and some allocation, as a real one
// does. Built with the machine's Go and with Go 1.19 (go.mod says 1.19: nothing newer is
// used).
//
//	server -addr 127.0.0.1:0 [-trace FILE] [-routes] [-labels]
//
// Prints "listening ADDR" once it accepts connections. -trace runs runtime/trace in the
// process for the server's whole life (the in-process comparison); SIGINT/SIGTERM stop
// the trace, flush the file and exit 0. -routes: a request takes one of four routes by its
// id (routes.go), three of which wait as real handlers do (a timer, a downstream worker
// over a channel, a file read). -labels: each request runs under a pprof label set
// (pprof.Do with its route and the request's id modulo 16), as servers that tag requests
// for profilers do (issue 34's cost bench: scripts/bench-http.sh --labels runs -routes in
// every mode and -labels in the labelled ones).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"syscall"
)

type reply struct {
	ID     int      `json:"id"`
	Square int      `json:"square"`
	Words  []string `json:"words"`
}

func handle(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(r.URL.Query().Get("id"))
	rep := reply{ID: id, Square: id * id, Words: []string{"alpha", "beta", "gamma", strconv.Itoa(id % 97)}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&rep)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	traceOut := flag.String("trace", "", "write a runtime/trace of the whole run to this file")
	labels := flag.Bool("labels", false, "run each request under a pprof label set")
	routed := flag.Bool("routes", false, "four routes by request id, three of which wait inside the handler")
	flag.Parse()
	var handler http.Handler = http.HandlerFunc(handle)
	if *routed {
		handler = newRoutes()
	}
	if *labels {
		inner := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, _ := strconv.Atoi(r.URL.Query().Get("id"))
			route := r.URL.Path
			if *routed {
				route = routeOf(id).name
			}
			set := pprof.Labels("route", route, "shard", strconv.Itoa(id%16))
			pprof.Do(context.Background(), set, func(context.Context) { inner.ServeHTTP(w, r) })
		})
	}

	var tf *os.File
	var tw *bufio.Writer
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		tf, tw = f, bufio.NewWriterSize(f, 1<<20)
		if err := trace.Start(tw); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: handler}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sigs
		if tw != nil {
			trace.Stop()
			_ = tw.Flush()
			_ = tf.Close()
		}
		if staticPath != "" {
			_ = os.Remove(staticPath)
		}
		os.Exit(0)
	}()
	fmt.Printf("listening %s\n", ln.Addr())
	_ = os.Stdout.Sync()
	_ = srv.Serve(ln)
}
