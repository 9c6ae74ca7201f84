//go:build go1.23

package main

import (
	"context"
	"iter"
	"runtime/trace"
)

// extras: iter.Pull runs the sequence on a coroutine; the runtime records
// GoSwitch / GoSwitchDestroy and GoCreateBlocked (trace format 1.23+).
func extras(ctx context.Context) {
	trace.WithRegion(ctx, "coroutines", func() {
		seq := func(yield func(int) bool) {
			for i := 0; i < 50; i++ {
				if !yield(i) {
					return
				}
			}
		}
		next, stop := iter.Pull(iter.Seq[int](seq))
		defer stop()
		for {
			if _, ok := next(); !ok {
				return
			}
		}
	})
}
