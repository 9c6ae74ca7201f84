package main

import (
	"flag"
	"fmt"
)

// calls: the subject of bench/overhead's uprobe-cost measurement, not a fidelity
// workload. It calls probeTarget 1M x scale times and prints "calls N ns T cpu_ns C"
// (wall and process CPU time of the loop) on stdout;
// gotraced-uprobe-cost attaches an empty BPF program at probeTarget's entry+4 (the JLS
// after the stack check, shared/docs/perf-anchors.md) and divides the difference.
func init() {
	register("calls", "bench only: 1M calls of a non-leaf function (uprobe cost subject)", callsWork)
}

var (
	callsSink  int
	callsCount = flag.Int("calls", 0, "calls: number of calls (default 1M x scale)")
)

func callsWork(scale int) {
	n := 1000000 * scale
	if *callsCount > 0 {
		n = *callsCount
	}
	x := 0
	m := startMeasure()
	for i := 0; i < n; i++ {
		x = probeTarget(x)
	}
	m.stop()
	callsSink = x
	fmt.Printf("calls %d ns %d cpu_ns %d\n", n, m.t1.Sub(m.t0).Nanoseconds(), (m.cpu1 - m.cpu0).Nanoseconds())
}

// probeTarget calls another function, so it is not a leaf and keeps its stack-bound
// check (cmd/internal/obj/x86/obj6.go: small leaf functions are marked NOSPLIT and have
// none): CMPQ SP, 16(R14) at the entry, JLS at entry+4.
//
//go:noinline
func probeTarget(x int) int { return probeLeaf(x) + 1 }

//go:noinline
func probeLeaf(x int) int { return x ^ 0x55 }
