// Package compare matches two traces of the same execution event class by
// event class: REF, written by the program's own runtime/trace, and OURS,
// written by gotraced from outside. Same process, so goroutine, task and proc
// ids agree; timestamps both come from CLOCK_MONOTONIC (the runtime's
// nanotime, gotraced's bpf_ktime_get_ns), and x/exp/trace turns trace clock
// ticks into ns (base.go, frequency.mul: ticks * 1e9/freq), so Event.Time()
// values of both files are directly comparable up to the 64 ns tick of
// runtime traces (runtime/tracetime.go: traceClockNow = nanotime()/64).
package compare

import (
	"sort"
	"strings"

	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/traceio"
)

// Rec is one comparable occurrence: a goroutine creation, block, syscall, ...
// Kept small (64 bytes): a big trace yields millions of them.
type Rec struct {
	T     int64              // Event.Time(), ns; shifted onto REF's clock for OURS
	G     int64              // the goroutine it is about (new G, blocked G, ...); -1 none
	By    int64              // creator (creates), unblocking G (unblocks); -1 none
	Key   string             // reason, start function, range/task/region name, metric name
	Stack *traceio.StackInfo // the event's stack (never nil; Key "" = none)
	Start *traceio.StackInfo // creates: the new goroutine's start stack; else nil
	Val   uint64             // metric value; sweep range ends: bytes swept
	Val2  uint64             // sweep range ends: bytes reclaimed
	P     int64              // ranges scoped to a P (sweeps): its id; else 0
}

// Trace holds what the comparison needs from one file.
type Trace struct {
	Path    string
	Version string
	Events  int
	First   int64
	Last    int64
	// Active is the time of the file's last event that the program's own
	// work wrote: not a Sync, and not a state transition from Undetermined.
	// StopTrace stops recording (runtime/trace.go traceAdvance(true):
	// trace.gen.Store(0)) and only then writes the statuses of goroutines
	// and Ps it did not see in the generation, stamped ms later: what the
	// program does in between (the trace writer's own write syscalls, seen
	// on go1.22 and go1.23 midrun) is in no in-process trace.
	Active int64
	// MonoMinusTrace is the median of ClockSnapshot.Mono - ClockSnapshot.Trace
	// over the file's syncs (go1.25+); HasClock false when there is none.
	MonoMinusTrace int64
	HasClock       bool
	// Syncs are the times of the generation-start Sync events (the reader's
	// closing synthetic Sync is left out).
	Syncs []int64

	Creates    []Rec // goroutine NotExist -> Runnable/Waiting/Syscall
	Exits      []Rec // goroutine -> NotExist
	Blocks     []Rec // Running -> Waiting, Key = reason
	Unblocks   []Rec // Waiting -> Runnable
	Stops      []Rec // Running -> Runnable, Key = reason
	Syscalls   []Rec // Running -> Syscall
	Ranges     []Rec // RangeBegin, Key = name, G = scope goroutine or -1
	Tasks      []Rec // TaskBegin, Key = id|parent|type
	TaskEnds   []Rec
	Regions    []Rec // RegionBegin, Key = task|type
	RegionEnds []Rec
	Logs       []Rec // Key = task|category|message
	Metrics    []Rec // Key = name, Val = value
	Labels     []Rec // GoLabel, Key = label, G = labelled goroutine (gc.go)
	Samples    []Rec // CPU samples (EventStackSample), Key = leaf function (cpu.go)
	SweepEnds  []Rec // RangeEnd "GC incremental sweep", Val = "bytes swept", Val2 = "bytes reclaimed" (gc.go)
	GCEnds     []Rec // RangeEnd "GC concurrent mark phase" (gc.go gcEnds)

	// Seen is every goroutine id that occurs in the file.
	Seen map[int64]bool
	// Pushed are the spans [first, last] of runs of events 1 ns apart: the
	// reader moves an event stamped at or before its predecessor to the
	// predecessor's time + 1 ns (x/exp/trace reader.go ReadEvent), so their
	// times are upper bounds. Kept: runs right after a generation's Sync, where
	// a runtime trace has them: Ms still writing the old generation
	// (runtime/trace.go traceAdvance) stamp events earlier than the new one's.
	Pushed [][2]int64
}

// Load parses path with x/exp/trace and extracts the comparable records.
func Load(path string) (*Trace, error) {
	t := &Trace{Path: path, Seen: map[int64]bool{}}
	stacks := traceio.NewStackCache()
	withStack := func(r Rec, s trace.Stack) Rec {
		r.Stack = stacks.Get(s)
		return r
	}
	var monos []int64
	started, afterSync := false, false
	version, err := traceio.Walk(path, func(ev trace.Event) error {
		t.Events++
		tm := int64(ev.Time())
		if !started {
			t.First, started = tm, true
		} else if tm == t.Last+1 {
			// Only runs that start right at a generation's Sync: two events of
			// one tick (64 ns, runtime/tracetime.go) are also 1 ns apart.
			if n := len(t.Pushed); n > 0 && t.Pushed[n-1][1] == t.Last {
				t.Pushed[n-1][1] = tm
			} else if afterSync {
				t.Pushed = append(t.Pushed, [2]int64{tm, tm})
			}
		}
		afterSync = ev.Kind() == trace.EventSync
		t.Last = tm
		if !afterSync && !fromUndetermined(ev) {
			t.Active = tm
		}
		if ev.Goroutine() == gotracedOwnG {
			return nil
		}
		if g := ev.Goroutine(); g != trace.NoGoroutine {
			t.Seen[int64(g)] = true
		}
		switch ev.Kind() {
		case trace.EventSync:
			t.Syncs = append(t.Syncs, tm)
			if c := ev.Sync().ClockSnapshot; c != nil {
				monos = append(monos, int64(c.Mono)-int64(c.Trace))
			}
		case trace.EventStateTransition:
			t.transition(ev, tm, stacks, withStack)
		case trace.EventRangeBegin:
			r := ev.Range()
			g := int64(-1)
			if r.Scope.Kind == trace.ResourceGoroutine {
				g = int64(r.Scope.Goroutine())
			}
			var p int64
			if r.Scope.Kind == trace.ResourceProc {
				p = int64(r.Scope.Proc())
			}
			t.Ranges = append(t.Ranges, withStack(Rec{T: tm, G: g, Key: r.Name, P: p}, ev.Stack()))
		case trace.EventRangeEnd:
			if r := ev.Range(); r.Name == gcMarkRange {
				t.GCEnds = append(t.GCEnds, Rec{T: tm, Key: r.Name})
			} else if r.Name == sweepRange {
				var swept, reclaimed uint64
				for _, a := range ev.RangeAttributes() {
					switch a.Name {
					case "bytes swept":
						swept = a.Value.Uint64()
					case "bytes reclaimed":
						reclaimed = a.Value.Uint64()
					}
				}
				t.SweepEnds = append(t.SweepEnds, Rec{T: tm, Key: r.Name, Val: swept, Val2: reclaimed})
			}
		case trace.EventTaskBegin:
			k := ev.Task()
			t.Tasks = append(t.Tasks, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: keyf(uint64(k.ID), uint64(k.Parent), k.Type)}, ev.Stack()))
		case trace.EventTaskEnd:
			k := ev.Task()
			t.TaskEnds = append(t.TaskEnds, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: keyf(uint64(k.ID))}, ev.Stack())) // id only: a file that starts after the task's begin (a flight-recorder window) has no type for it
		case trace.EventRegionBegin:
			r := ev.Region()
			if isKernelRegion(r.Type) {
				return nil
			}
			t.Regions = append(t.Regions, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: keyf(uint64(r.Task), r.Type)}, ev.Stack()))
		case trace.EventRegionEnd:
			r := ev.Region()
			if isKernelRegion(r.Type) {
				return nil
			}
			t.RegionEnds = append(t.RegionEnds, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: keyf(uint64(r.Task), r.Type)}, ev.Stack()))
		case trace.EventLog:
			l := ev.Log()
			if isKernelRegion(l.Category) {
				return nil
			}
			t.Logs = append(t.Logs, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: keyf(uint64(l.Task), l.Category, l.Message)}, ev.Stack()))
		case trace.EventStackSample:
			t.Samples = append(t.Samples, withStack(Rec{T: tm, G: int64(ev.Goroutine()), Key: leafFunc(ev.Stack())}, trace.NoStack))
		case trace.EventLabel:
			l := ev.Label()
			g := int64(-1)
			if l.Resource.Kind == trace.ResourceGoroutine {
				g = int64(l.Resource.Goroutine())
			}
			t.Labels = append(t.Labels, withStack(Rec{T: tm, G: g, Key: l.Label}, trace.NoStack))
		case trace.EventMetric:
			m := ev.Metric()
			var v uint64
			if m.Value.Kind() == trace.ValueUint64 {
				v = m.Value.Uint64()
			}
			t.Metrics = append(t.Metrics, withStack(Rec{T: tm, G: gid(ev.Goroutine()), Key: m.Name, Val: v}, trace.NoStack))
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	t.Version = version
	if len(t.Syncs) > 0 {
		t.Syncs = t.Syncs[:len(t.Syncs)-1]
	}
	if len(monos) > 0 {
		sort.Slice(monos, func(i, j int) bool { return monos[i] < monos[j] })
		t.MonoMinusTrace, t.HasClock = monos[len(monos)/2], true
	}
	return t, nil
}

func (t *Trace) transition(ev trace.Event, tm int64, stacks *traceio.StackCache, withStack func(Rec, trace.Stack) Rec) {
	st := ev.StateTransition()
	if st.Resource.Kind != trace.ResourceGoroutine {
		return
	}
	if st.Resource.Goroutine() == gotracedOwnG {
		return
	}
	id := int64(st.Resource.Goroutine())
	t.Seen[id] = true
	from, to := st.Goroutine()
	r := Rec{T: tm, G: id, By: -1, Key: st.Reason, Stack: stacks.Get(trace.NoStack)}
	switch {
	case from == trace.GoNotExist && to != trace.GoNotExist:
		// For GoCreate the event's goroutine is the creator and its Stack()
		// the creator's stack; the transition's Stack is the new goroutine's
		// start (x/exp/trace event.go, StateTransition for EvGoCreate).
		r.By = gid(ev.Goroutine())
		r = withStack(r, ev.Stack())
		r.Start = stacks.Get(st.Stack)
		if fr := r.Start.Frames; len(fr) > 0 {
			r.Key = fr[len(fr)-1].Func // outermost frame = the start function
		}
		t.Creates = append(t.Creates, r)
	case to == trace.GoNotExist && from != trace.GoUndetermined:
		t.Exits = append(t.Exits, r)
	case from == trace.GoRunning && to == trace.GoWaiting:
		t.Blocks = append(t.Blocks, withStack(r, st.Stack))
	case from == trace.GoWaiting && to == trace.GoRunnable:
		r.By = gid(ev.Goroutine())
		t.Unblocks = append(t.Unblocks, withStack(r, ev.Stack()))
	case from == trace.GoRunning && to == trace.GoRunnable:
		t.Stops = append(t.Stops, withStack(r, st.Stack))
	case from == trace.GoRunning && to == trace.GoSyscall:
		t.Syscalls = append(t.Syscalls, withStack(r, st.Stack))
	}
}

func gid(g trace.GoID) int64 {
	if g == trace.NoGoroutine {
		return -1
	}
	return int64(g)
}

// fromUndetermined: a status event (a goroutine's or P's state the tracer
// states at a generation's start or end), not a transition the program made.
func fromUndetermined(ev trace.Event) bool {
	if ev.Kind() != trace.EventStateTransition {
		return false
	}
	st := ev.StateTransition()
	switch st.Resource.Kind {
	case trace.ResourceGoroutine:
		from, _ := st.Goroutine()
		return from == trace.GoUndetermined
	case trace.ResourceProc:
		from, _ := st.Proc()
		return from == trace.ProcUndetermined
	}
	return false
}

// isKernelRegion: a region (or a log's category) of gotraced's kernel view
// (docs/kernel-view.md, daemon/model/kernel_view.h: "kernel: ..."), which no in-process
// trace has:
// left out of both sides, so that the fidelity figures compare what runtime/trace
// records (a program's own region of such a type would be left out too).
func isKernelRegion(typ string) bool { return strings.HasPrefix(typ, "kernel: ") }

// gotracedOwnG is the goroutine gotraced writes its own logs on (daemon/model/record.h
// kStateSampleG: level low's goroutine state samples, and at every level the notes, as
// "gotraced: target" at a trace's start): no program has it, so it is left out as the
// kernel view is.
const gotracedOwnG = trace.GoID(1) << 62
