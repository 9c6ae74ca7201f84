package main

import (
	"context"
	"runtime/trace"
	"sync"
)

// annotations: runtime/trace user annotations (runtime/trace/annotation.go): tasks
// nested across goroutines (NewTask with a parent task, Task.End on another goroutine
// than the one that created it), regions through WithRegion and StartRegion/End
// (nested, on several goroutines), logs through Log and Logf (with and without a task).
//
// Run with -reftrace the program traces itself, so every annotation reaches the
// runtime (runtime/traceruntime.go trace_user*). Run without it, package runtime/trace
// sees tracing off: StartRegion returns noopRegion, (*Region).End of it and Logf
// return early; NewTask, Task.End, Log and WithRegion still call into the runtime.
func init() {
	register("annotations", "runtime/trace tasks, regions (WithRegion, StartRegion), logs (Log, Logf)", annotations)
}

func annotations(scale int) {
	for i := 0; i < 8*scale; i++ {
		annotationRound(i)
	}
}

// annotationRound: one parent task, two child tasks handled by their own goroutines
// (created here, ended there), regions and logs in each.
func annotationRound(i int) {
	ctx, parent := trace.NewTask(context.Background(), "request")
	trace.Log(ctx, "round", "begin")
	var wg sync.WaitGroup
	done := make(chan *trace.Task, 2)
	for k := 0; k < 2; k++ {
		cctx, child := trace.NewTask(ctx, "child")
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			trace.WithRegion(cctx, "work", func() {
				r := trace.StartRegion(cctx, "inner")
				trace.Logf(cctx, "child", "k=%d i=%d", k, i)
				r.End()
			})
			trace.Log(cctx, "", "no category")
			done <- child
		}(k)
	}
	wg.Wait()
	for k := 0; k < 2; k++ {
		(<-done).End() // ended on this goroutine, created here too but used by another
	}
	r := trace.StartRegion(ctx, "tail")
	trace.Logf(context.Background(), "bg", "round %d", i) // no task: id 0
	r.End()
	parent.End()
}
