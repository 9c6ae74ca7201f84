// The HTTP bench's load generator: an open-loop client that sends GET requests at a fixed
// rate, whatever the server's latency (a request is due at start + i/rate and is sent
// then, on its own goroutine, so a slow server does not slow the offered load: the
// latencies are measured from the due time, which counts queueing the client saw).
//
//	client -url http://127.0.0.1:PORT/ -rate 3000 -duration 10s [-warmup 2s]
//
// Requests due in the first -warmup are sent but not counted. Prints one line:
//
//	RESULT offered=3000 achieved=2999.8 sent=30000 ok=30000 errors=0 p50_us=180 p99_us=950 max_us=4000
//
// With -new-conn every request opens a connection of its own (no keep-alive), so the
// server accepts a connection, and creates its goroutine, per request (the soak bench).
//
// With -closed N it measures the most the server serves instead: N keep-alive
// connections, each sending its next request as soon as the last one's response is read
// (closed loop, as wrk does), and "offered" is 0; with -new-conn each request still opens
// a connection of its own (at most N at a time: the soak's short form, whose server then
// never holds more than N requests whatever the machine's load).
//
// On SIGUSR1 the open-loop client prints the requests finished so far, warm-up included,
// so that a bench can count what was served in a window of its own (bench/sampling/paired.py):
//
//	COUNT ok=123456 errors=0
//
// With -twin URL2 it sends the same requests to a second server at the same due times (the
// two in turn first), so that twins of a server see the same arrivals, the client's own
// stalls included (bench/sampling/paired.py); RESULT counts both, COUNT each:
//
//	COUNT ok=123456,123455 errors=0,0
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	url := flag.String("url", "", "server URL")
	twin := flag.String("twin", "", "a second server URL, sent the same requests at the same times (open loop only)")
	rate := flag.Float64("rate", 3000, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "measured time (after -warmup)")
	warmup := flag.Duration("warmup", 0, "time before the measured window (requests sent, not counted)")
	conns := flag.Int("conns", 64, "most keep-alive connections to the server")
	closed := flag.Int("closed", 0, "closed loop: this many connections, each sending back to back (maximum throughput); -rate is ignored")
	newConn := flag.Bool("new-conn", false, "a new connection per request (no keep-alive)")
	flag.Parse()
	if *url != "" && *closed > 0 {
		closedLoop(*url, *closed, *warmup, *duration, *newConn)
		return
	}
	if *url == "" || *rate <= 0 {
		fmt.Fprintln(os.Stderr, "client: need -url and a positive -rate")
		os.Exit(2)
	}
	// 2x: -twin is a second host with its own pool.
	tr := &http.Transport{MaxIdleConns: 2 * *conns, MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns,
		DisableKeepAlives: *newConn}
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second}

	interval := time.Duration(float64(time.Second) / *rate)
	total := int((*warmup + *duration) / interval)
	skip := int(*warmup / interval)
	urls := []string{*url}
	if *twin != "" {
		urls = append(urls, *twin)
	}
	n := len(urls)
	lat := make([]time.Duration, total*n) // request i to urls[k] is slot i*n+k
	okv := make([]bool, total*n)
	doneOK, doneErr := make([]atomic.Int64, n), make([]atomic.Int64, n)
	countOnSignal(doneOK, doneErr)
	var wg sync.WaitGroup
	start := time.Now().Add(10 * time.Millisecond)
	for i := 0; i < total; i++ {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		for j := 0; j < n; j++ {
			k := (i + j) % n // the twins in turn first
			wg.Add(1)
			go func(i, k int, due time.Time) {
				defer wg.Done()
				slot := i*n + k
				resp, err := cl.Get(urls[k] + "?id=" + strconv.Itoa(i))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					okv[slot] = err == nil && resp.StatusCode == 200
				}
				lat[slot] = time.Since(due)
				if okv[slot] {
					doneOK[k].Add(1)
				} else {
					doneErr[k].Add(1)
				}
			}(i, k, due)
		}
	}
	sendEnd := time.Now()
	wg.Wait()

	counted := lat[skip*n:]
	oks := 0
	var l []time.Duration
	for i, d := range counted {
		if okv[skip*n+i] {
			oks++
			l = append(l, d)
		}
	}
	sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
	pct := func(p float64) int64 {
		if len(l) == 0 {
			return -1
		}
		k := int(p * float64(len(l)-1))
		return l[k].Microseconds()
	}
	window := sendEnd.Sub(start.Add(time.Duration(skip) * interval)).Seconds()
	fmt.Printf("RESULT offered=%.0f achieved=%.1f sent=%d ok=%d errors=%d p50_us=%d p99_us=%d max_us=%d\n",
		*rate*float64(n), float64(oks)/window, len(counted), oks, len(counted)-oks, pct(0.50), pct(0.99), pct(1.0))
}

// countOnSignal prints the requests finished so far per URL at every SIGUSR1 (one line each).
func countOnSignal(ok, errs []atomic.Int64) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGUSR1)
	list := func(v []atomic.Int64) string {
		s := ""
		for i := range v {
			if i > 0 {
				s += ","
			}
			s += strconv.FormatInt(v[i].Load(), 10)
		}
		return s
	}
	go func() {
		for range ch {
			fmt.Printf("COUNT ok=%s errors=%s\n", list(ok), list(errs))
		}
	}()
}

// closedLoop: n workers, each with its own keep-alive connection, send requests back to
// back for warmup + duration; requests finished inside the measured window count.
func closedLoop(url string, n int, warmup, duration time.Duration, newConn bool) {
	tr := &http.Transport{MaxIdleConns: n, MaxIdleConnsPerHost: n, MaxConnsPerHost: n, DisableKeepAlives: newConn}
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+duration)
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for i := 0; ; i++ {
				t0 := time.Now()
				if !t0.Before(until) {
					break
				}
				resp, err := cl.Get(url + "?id=" + strconv.Itoa(w<<24|i))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				t1 := time.Now()
				if t0.Before(from) || t1.After(until) {
					continue
				}
				if err != nil {
					bad++
				} else {
					mine = append(mine, t1.Sub(t0))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += bad
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	pct := func(p float64) int64 {
		if len(lat) == 0 {
			return -1
		}
		return lat[int(p*float64(len(lat)-1))].Microseconds()
	}
	fmt.Printf("RESULT offered=0 achieved=%.1f sent=%d ok=%d errors=%d p50_us=%d p99_us=%d max_us=%d\n",
		float64(len(lat))/duration.Seconds(), len(lat)+errs, len(lat), errs, pct(0.50), pct(0.99), pct(1.0))
}
