// -routes: the request's id picks one of four routes, and three of them wait inside the
// handler as real ones do (a database call, a downstream request, a file), so a goroutine
// blocks, and starts again, inside its pprof.Do (issue 34: a label set is seen at a
// goroutine's start and at its block, syscall or stop; a handler that neither blocks nor
// yields shows its set almost never: 2 logs in 3 s at 2,000 requests/s before this).
package main

import (
	"net/http"
	"os"
	"strconv"
	"time"
)

type route struct {
	name string
	wait func()
}

var (
	// A downstream service: a few workers answer each request after a short pause, so
	// the handler waits on a channel receive (the "search" route).
	downstream = make(chan chan struct{}, 64)
	// A small file read per request (the "static" route): a read syscall in the handler.
	staticPath string
	routeTable []route
)

func newRoutes() http.Handler {
	for i := 0; i < 4; i++ {
		go func() {
			for reply := range downstream {
				time.Sleep(200 * time.Microsecond)
				reply <- struct{}{}
			}
		}()
	}
	f, err := os.CreateTemp("", "bench-http-static-")
	if err == nil {
		_, _ = f.WriteString(`{"static":true}`)
		_ = f.Close()
		staticPath = f.Name()
	}
	routeTable = []route{
		// A database call: a timer (the goroutine parks, "sleep").
		{"/api/orders", func() { time.Sleep(time.Millisecond) }},
		// A downstream request: a channel round trip to a worker ("chan receive").
		{"/api/search", func() {
			reply := make(chan struct{})
			downstream <- reply
			<-reply
		}},
		// A file: open, read, close (syscalls in the handler).
		{"/api/static", func() {
			if staticPath != "" {
				_, _ = os.ReadFile(staticPath)
			}
		}},
		// No wait: the handler runs from start to end without a switch.
		{"/api/health", func() {}},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("id"))
		routeOf(id).wait()
		handle(w, r)
	})
}

func routeOf(id int) route {
	if id < 0 {
		id = -id
	}
	return routeTable[id%len(routeTable)]
}
