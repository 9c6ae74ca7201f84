package summary

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/traceio"
)

// Validator applies light semantic checks on the parser's output. Go's strict
// validator (x/exp/trace/internal/testtrace, used by Go's own trace tests) is
// internal and cannot be imported, so these checks restate, in our own code,
// the properties it holds a runtime-written trace to: time order, sequential
// syncs with clock snapshots (1.25+), state machines whose "from" state agrees
// with the previous "to", one executing G/P per thread, balanced ranges, sane
// task ids, metric names and stack frames.
type Validator struct {
	minor    int // 25 for go1.25; 0 if unknown
	lastT    trace.Time
	lastSync trace.Sync
	gs       map[trace.GoID]trace.GoState
	ps       map[trace.ProcID]trace.ProcState
	gOnM     map[trace.ThreadID]trace.GoID
	pOnM     map[trace.ThreadID]trace.ProcID
	gBind    map[trace.GoID]trace.ThreadID
	pBind    map[trace.ProcID]trace.ThreadID
	ranges   map[trace.ResourceID]map[string]bool
	tasks    map[trace.TaskID]string
	checked  map[trace.Stack]bool
	errs     []string
	nerr     int
}

// maxKeptErrors bounds the messages kept; all errors are counted.
const maxKeptErrors = 20

// NewValidator returns a validator for a trace with the given header version
// ("go1.NN" as returned by traceio.Version).
func NewValidator(version string) *Validator {
	minor, _ := strconv.Atoi(strings.TrimPrefix(version, "go1."))
	return &Validator{
		minor:   minor,
		gs:      map[trace.GoID]trace.GoState{},
		ps:      map[trace.ProcID]trace.ProcState{},
		gOnM:    map[trace.ThreadID]trace.GoID{},
		pOnM:    map[trace.ThreadID]trace.ProcID{},
		gBind:   map[trace.GoID]trace.ThreadID{},
		pBind:   map[trace.ProcID]trace.ThreadID{},
		ranges:  map[trace.ResourceID]map[string]bool{},
		tasks:   map[trace.TaskID]string{},
		checked: map[trace.Stack]bool{},
	}
}

func (v *Validator) errorf(ev trace.Event, format string, args ...any) {
	v.nerr++
	if len(v.errs) < maxKeptErrors {
		v.errs = append(v.errs, fmt.Sprintf(format, args...)+" at event: "+ev.String())
	}
}

// Result returns the validation summary.
func (v *Validator) Result() Validation {
	first := v.errs
	if first == nil {
		first = []string{}
	}
	return Validation{Checked: true, Errors: v.nerr, First: first}
}

// Event checks one event.
func (v *Validator) Event(ev trace.Event) {
	if v.lastT != 0 && ev.Time() <= v.lastT {
		v.errorf(ev, "time %d not after previous %d", ev.Time(), v.lastT)
	}
	if v.lastT == 0 || ev.Time() > v.lastT {
		v.lastT = ev.Time()
	}
	v.checkFrames(ev, ev.Stack())
	switch ev.Kind() {
	case trace.EventSync:
		v.sync(ev)
	case trace.EventMetric:
		m := ev.Metric()
		if !strings.Contains(m.Name, ":") {
			v.errorf(ev, "metric name %q lacks a unit", m.Name)
		}
		if m.Value.Kind() == trace.ValueBad {
			v.errorf(ev, "metric %q has no value", m.Name)
		}
	case trace.EventLabel:
		l := ev.Label()
		if l.Label == "" || l.Resource.Kind == trace.ResourceNone {
			v.errorf(ev, "label %q on resource %v", l.Label, l.Resource)
		}
	case trace.EventStateTransition:
		st := ev.StateTransition()
		v.checkFrames(ev, st.Stack)
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			v.goTransition(ev, st)
		case trace.ResourceProc:
			v.procTransition(ev, st)
		}
	case trace.EventRangeBegin, trace.EventRangeActive, trace.EventRangeEnd:
		v.rangeEvent(ev)
	case trace.EventTaskBegin:
		t := ev.Task()
		if t.ID == trace.NoTask || t.ID == trace.BackgroundTask {
			v.errorf(ev, "task begin with reserved id %d", t.ID)
		}
		if t.Parent == trace.BackgroundTask {
			v.errorf(ev, "task %d has the background task as parent", t.ID)
		}
		v.tasks[t.ID] = t.Type
	case trace.EventTaskEnd:
		t := ev.Task()
		if typ, ok := v.tasks[t.ID]; ok {
			if typ != t.Type {
				v.errorf(ev, "task %d ends as %q but began as %q", t.ID, t.Type, typ)
			}
			delete(v.tasks, t.ID)
		}
	}
}

// checkFrames: the parser tolerates a first frame without information (Go's
// validator allows it too); any other frame must be complete.
func (v *Validator) checkFrames(ev trace.Event, s trace.Stack) {
	if s == trace.NoStack || v.checked[s] {
		return
	}
	v.checked[s] = true
	for i, f := range traceio.StackFrames(s) {
		if i > 0 && (f.Func == "" || f.File == "" || f.PC == 0 || f.Line == 0) {
			v.errorf(ev, "stack frame %d incomplete: %+v", i, f)
		}
	}
}

func (v *Validator) sync(ev trace.Event) {
	s := ev.Sync()
	if s.N != v.lastSync.N+1 {
		v.errorf(ev, "sync %d follows sync %d", s.N, v.lastSync.N)
	}
	// Since go1.25 every generation's sync batch carries a ClockSnapshot
	// (go-trace-format.md 1.3). The reader's closing sync (N>1, no snapshot)
	// is synthetic and exempt.
	if v.minor >= 25 && !(s.N > 1 && s.ClockSnapshot == nil) {
		c := s.ClockSnapshot
		switch {
		case c == nil:
			v.errorf(ev, "sync %d has no clock snapshot", s.N)
		case c.Mono == 0 || c.Trace == 0 || c.Wall.IsZero():
			v.errorf(ev, "sync %d has a zero clock in its snapshot %+v", s.N, *c)
		case v.lastSync.ClockSnapshot != nil:
			p := v.lastSync.ClockSnapshot
			if c.Mono <= p.Mono || c.Trace <= p.Trace || !c.Wall.After(p.Wall) {
				v.errorf(ev, "sync %d clock snapshot %+v not after previous %+v", s.N, *c, *p)
			}
		}
	}
	v.lastSync = s
}

func (v *Validator) goTransition(ev trace.Event, st trace.StateTransition) {
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	if to == trace.GoUndetermined {
		v.errorf(ev, "goroutine %d transitions to Undetermined", id)
	}
	if from == trace.GoUndetermined && v.lastSync.N > 1 {
		v.errorf(ev, "goroutine %d undetermined after the first generation", id)
	}
	if cur, ok := v.gs[id]; ok {
		if cur != from {
			v.errorf(ev, "goroutine %d leaves %s but was %s", id, from, cur)
		}
	} else if from != trace.GoUndetermined && from != trace.GoNotExist {
		v.errorf(ev, "unknown goroutine %d leaves %s", id, from)
	}
	v.gs[id] = to
	if to == trace.GoNotExist && len(v.ranges[trace.MakeResourceID(id)]) > 0 {
		v.errorf(ev, "goroutine %d exits with open ranges", id)
	}
	switch {
	case to.Executing() && ev.Thread() == trace.NoThread:
		// No thread to bind to: x/exp/trace converts a Go <= 1.21 trace's GoInSyscall
		// (a goroutine already in a syscall when the trace began) to Undetermined ->
		// Syscall on thread -1, for each such goroutine (Go's parser accepts it). That is
		// not one thread running several goroutines: gotraced's --pid attach of a go1.19
		// server at 20k requests/s finds several in a syscall (bench-http --closed).
		v.gBind[id] = trace.NoThread
	case from.Executing() && v.gBind[id] == trace.NoThread: // NoThread (-1) is not the map's zero value
		delete(v.gBind, id)
	case to.Executing():
		m := ev.Thread()
		if cur, ok := v.gOnM[m]; ok && cur != id {
			v.errorf(ev, "goroutine %d starts on thread %d which runs goroutine %d", id, m, cur)
		}
		v.gOnM[m] = id
		v.gBind[id] = m
	case from.Executing():
		m, ok := v.gBind[id]
		if !ok {
			// First generation: the goroutine may have been running before
			// the trace began, bound to the event's thread.
			m = ev.Thread()
		}
		if cur, ok := v.gOnM[m]; ok && cur != id {
			v.errorf(ev, "goroutine %d stops on thread %d which runs goroutine %d", id, m, cur)
		}
		delete(v.gOnM, m)
		delete(v.gBind, id)
	}
}

func (v *Validator) procTransition(ev trace.Event, st trace.StateTransition) {
	id := st.Resource.Proc()
	from, to := st.Proc()
	if to == trace.ProcUndetermined {
		v.errorf(ev, "proc %d transitions to Undetermined", id)
	}
	if from == trace.ProcUndetermined && v.lastSync.N > 1 {
		v.errorf(ev, "proc %d undetermined after the first generation", id)
	}
	if cur, ok := v.ps[id]; ok {
		if cur != from {
			v.errorf(ev, "proc %d leaves %s but was %s", id, from, cur)
		}
	} else if from != trace.ProcUndetermined && from != trace.ProcNotExist {
		v.errorf(ev, "unknown proc %d leaves %s", id, from)
	}
	v.ps[id] = to
	switch {
	case to.Executing():
		m := ev.Thread()
		if cur, ok := v.pOnM[m]; ok && cur != id {
			v.errorf(ev, "proc %d starts on thread %d which holds proc %d", id, m, cur)
		}
		v.pOnM[m] = id
		v.pBind[id] = m
	case from.Executing():
		m, ok := v.pBind[id]
		if !ok {
			m = ev.Thread()
		}
		if cur, ok := v.pOnM[m]; ok && cur != id {
			v.errorf(ev, "proc %d stops on thread %d which holds proc %d", id, m, cur)
		}
		delete(v.pOnM, m)
		delete(v.pBind, id)
	}
}

func (v *Validator) rangeEvent(ev trace.Event) {
	r := ev.Range()
	open := v.ranges[r.Scope]
	if open == nil {
		open = map[string]bool{}
		v.ranges[r.Scope] = open
	}
	switch ev.Kind() {
	case trace.EventRangeBegin:
		if open[r.Name] {
			v.errorf(ev, "range %q on %v begins while open", r.Name, r.Scope)
		}
		open[r.Name] = true
	case trace.EventRangeActive:
		open[r.Name] = true
	case trace.EventRangeEnd:
		if !open[r.Name] {
			v.errorf(ev, "range %q on %v ends while not open", r.Name, r.Scope)
		}
		delete(open, r.Name)
	}
}
