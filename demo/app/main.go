// The bundled demo: a small Go service doing what real services do — an HTTP server
// on loopback with clients, a worker pool fed by a channel, a mutex-protected cache,
// timers and file I/O — so a trace of it shows goroutines blocking for every common
// reason. It runs until -duration elapses (default: forever) or it is signalled.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type cache struct {
	mu sync.Mutex
	m  map[int]int
}

func (c *cache) get(k int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	if !ok {
		v = fib(k % 24)
		c.m[k] = v
	}
	return v
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func worker(id int, jobs <-chan int, results chan<- int, c *cache, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		results <- c.get(j + id)
	}
}

func serve(ln net.Listener, c *cache) {
	mux := http.NewServeMux()
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d\n", c.get(int(time.Now().UnixNano()%1000)))
	})
	_ = http.Serve(ln, mux)
}

func client(addr string, stop <-chan struct{}) {
	cl := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-stop:
			return
		default:
		}
		resp, err := cl.Get("http://" + addr + "/work")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func fileIO(stop <-chan struct{}) {
	f, err := os.CreateTemp("", "gotraced-demo-*")
	if err != nil {
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			_, _ = f.WriteAt(buf, 0)
			_ = f.Sync()
		}
	}
}

func main() {
	duration := flag.Duration("duration", 0, "run this long, then exit (0 = until signalled)")
	flag.Parse()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	c := &cache{m: map[int]int{}}
	go serve(ln, c)

	stop := make(chan struct{})
	for i := 0; i < 3; i++ {
		go client(ln.Addr().String(), stop)
	}
	// Its temp file is removed when it returns: main waits for that, or every run left
	// one in $TMPDIR.
	fileDone := make(chan struct{})
	go func() { fileIO(stop); close(fileDone) }()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	var deadline <-chan time.Time
	if *duration > 0 {
		deadline = time.After(*duration)
	}
	fmt.Printf("demo: pid %d serving on %s\n", os.Getpid(), ln.Addr())

	rounds := 0
	for {
		jobs := make(chan int, 16)
		results := make(chan int, 16)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go worker(w, jobs, results, c, &wg)
		}
		go func() {
			for j := 0; j < 64; j++ {
				jobs <- j
			}
			close(jobs)
		}()
		go func() { wg.Wait(); close(results) }()
		sum := 0
		for r := range results {
			sum += r
		}
		rounds++
		select {
		case <-sigs:
			close(stop)
			<-fileDone
			fmt.Printf("demo: %d rounds, exiting on signal\n", rounds)
			return
		case <-deadline:
			close(stop)
			<-fileDone
			fmt.Printf("demo: %d rounds, done\n", rounds)
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
