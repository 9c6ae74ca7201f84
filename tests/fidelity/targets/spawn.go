package main

import "sync"

// spawn: 10k short-lived goroutines, created in batches of 500 by the main goroutine
// (runtime/proc.go newproc -> GoCreate; goexit0 -> GoDestroy). Each goroutine has a
// named start function so that creator and start function can be compared.
func init() {
	register("spawn", "10k short-lived goroutines in batches of 500", spawn)
}

func spawn(scale int) {
	n := 10000 * scale
	results := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i += 500 {
		for j := i; j < i+500 && j < n; j++ {
			wg.Add(1)
			go spawnWorker(results, j, &wg)
		}
		wg.Wait()
	}
	for i, r := range results {
		if r != i*3+1 {
			panic("spawn: lost result")
		}
	}
}

func spawnWorker(results []int, i int, wg *sync.WaitGroup) {
	results[i] = i*3 + 1
	wg.Done()
}
