package main

import (
	"runtime"
	"sync"
)

// mutex: contention on sync.Mutex, sync.RWMutex, sync.WaitGroup and sync.Cond. Lock
// contention parks in runtime/sema.go semacquire1 (trace reason "sync"), Cond.Wait in
// notifyListWait ("sync.(*Cond).Wait"); Gosched while holding a lock forces the others
// to block instead of spinning.
func init() {
	register("mutex", "sync.Mutex/RWMutex/WaitGroup/Cond contention", syncPrims)
}

var sinkInt int

func spin(n int) {
	x := 0
	for i := 0; i < n; i++ {
		x += i * i
	}
	sinkInt += x
}

func syncPrims(scale int) {
	mutexPart(scale)
	rwmutexPart(scale)
	waitGroupPart(scale)
	condPart(scale)
}

func mutexPart(scale int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	counter := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go mutexWorker(&mu, &wg, &counter, 1500*scale)
	}
	wg.Wait()
	if counter != 8*1500*scale {
		panic("mutex: lost updates")
	}
}

func mutexWorker(mu *sync.Mutex, wg *sync.WaitGroup, counter *int, n int) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		mu.Lock()
		*counter++
		spin(50)
		if i%8 == 0 {
			runtime.Gosched() // holding the lock: the others must park on it
		}
		mu.Unlock()
	}
}

func rwmutexPart(scale int) {
	var rw sync.RWMutex
	var wg sync.WaitGroup
	shared := map[int]int{}
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go rwReader(&rw, &wg, shared, 400*scale)
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go rwWriter(&rw, &wg, shared, g, 150*scale)
	}
	wg.Wait()
}

func rwReader(rw *sync.RWMutex, wg *sync.WaitGroup, m map[int]int, n int) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		rw.RLock()
		sinkInt += m[i%16]
		if i%16 == 0 {
			runtime.Gosched()
		}
		rw.RUnlock()
	}
}

func rwWriter(rw *sync.RWMutex, wg *sync.WaitGroup, m map[int]int, id, n int) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		rw.Lock()
		m[i%16] = id + i
		spin(100)
		rw.Unlock()
		if i%4 == 0 {
			runtime.Gosched()
		}
	}
}

// waitGroupPart: rounds of a fan-out whose joiner blocks in WaitGroup.Wait.
func waitGroupPart(scale int) {
	for r := 0; r < 200*scale; r++ {
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go wgWorker(&wg)
		}
		wg.Wait()
	}
}

func wgWorker(wg *sync.WaitGroup) {
	spin(200)
	wg.Done()
}

// condPart: a bounded queue guarded by a Cond; consumers Wait when it is empty, the
// producer Waits when it is full.
func condPart(scale int) {
	type queue struct {
		mu    sync.Mutex
		cond  *sync.Cond
		items []int
		done  bool
	}
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	const capacity = 4
	var wg sync.WaitGroup
	total := 0
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q.mu.Lock()
				for len(q.items) == 0 && !q.done {
					q.cond.Wait()
				}
				if len(q.items) == 0 && q.done {
					q.mu.Unlock()
					return
				}
				total += q.items[0]
				q.items = q.items[1:]
				q.cond.Broadcast()
				q.mu.Unlock()
			}
		}()
	}
	for i := 0; i < 3000*scale; i++ {
		q.mu.Lock()
		for len(q.items) >= capacity {
			q.cond.Wait()
		}
		q.items = append(q.items, 1)
		q.cond.Signal()
		q.mu.Unlock()
	}
	q.mu.Lock()
	q.done = true
	q.cond.Broadcast()
	q.mu.Unlock()
	wg.Wait()
	if total != 3000*scale {
		panic("cond: lost items")
	}
}
