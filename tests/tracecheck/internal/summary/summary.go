// Package summary counts what a parsed trace contains. Its JSON form is the
// stable interface documented in README.md: other tests (the C++ encoder's
// property tests, the suites) compare these counts, so keys are never renamed.
package summary

import (
	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/traceio"
)

// Summary is the JSON document printed by tracecheck. Every map is always
// present (possibly empty) so consumers can index without nil checks.
type Summary struct {
	Version      string                    `json:"version"`
	Events       int                       `json:"events"`
	Kinds        map[string]int            `json:"kinds"`
	Transitions  map[string]map[string]int `json:"transitions"`
	Goroutines   int                       `json:"goroutines"`
	Procs        int                       `json:"procs"`
	Threads      int                       `json:"threads"`
	Creates      int                       `json:"creates"`
	Syscalls     int                       `json:"syscalls"`
	BlockReasons map[string]int            `json:"block_reasons"`
	StopReasons  map[string]int            `json:"stop_reasons"`
	Stacks       int                       `json:"stacks"`
	Distinct     int                       `json:"distinct_stacks"`
	Frames       int                       `json:"frames"`
	Tasks        int                       `json:"tasks"`
	TaskEnds     int                       `json:"task_ends"`
	Regions      int                       `json:"regions"`
	RegionEnds   int                       `json:"region_ends"`
	Logs         int                       `json:"logs"`
	// Per log category: how many, and the time of the first (gotraced's own "gotraced:
	// trigger" log marks a trigger's moment; tests/serve/triggers.sh).
	LogCategories map[string]int   `json:"log_categories"`
	LogFirstNS    map[string]int64 `json:"log_first_ns"`
	Ranges        map[string]int   `json:"ranges"`
	RangeActives  map[string]int   `json:"range_actives"`
	RangeEnds     map[string]int   `json:"range_ends"`
	Metrics       map[string]int   `json:"metrics"`
	Labels        int              `json:"labels"`
	CPUSamples    int              `json:"cpu_samples"`
	CPUSamplesG   int              `json:"cpu_samples_with_goroutine"`
	Syncs         int              `json:"syncs"`
	Generations   int              `json:"generations"`
	ClockSnaps    int              `json:"clock_snapshots"`
	Experimental  int              `json:"experimental"`
	FirstNS       int64            `json:"first_ns"`
	LastNS        int64            `json:"last_ns"`
	DurationNS    int64            `json:"duration_ns"`
	Validation    Validation       `json:"validation"`

	gs, ps, ms map[int64]struct{}
	stacks     *traceio.StackCache
	started    bool
}

// Validation reports the light semantic checks of validate.go.
type Validation struct {
	Checked bool     `json:"checked"`
	Errors  int      `json:"errors"`
	First   []string `json:"first_errors"`
}

// New returns an empty summary.
func New() *Summary {
	return &Summary{
		Kinds:         map[string]int{},
		Transitions:   map[string]map[string]int{"goroutine": {}, "proc": {}},
		BlockReasons:  map[string]int{},
		StopReasons:   map[string]int{},
		Ranges:        map[string]int{},
		RangeActives:  map[string]int{},
		RangeEnds:     map[string]int{},
		Metrics:       map[string]int{},
		LogCategories: map[string]int{},
		LogFirstNS:    map[string]int64{},
		Validation:    Validation{First: []string{}},
		gs:            map[int64]struct{}{},
		ps:            map[int64]struct{}{},
		ms:            map[int64]struct{}{},
		stacks:        traceio.NewStackCache(),
	}
}

func (s *Summary) noteG(g trace.GoID) {
	if g != trace.NoGoroutine {
		s.gs[int64(g)] = struct{}{}
	}
}

func (s *Summary) noteP(p trace.ProcID) {
	if p != trace.NoProc {
		s.ps[int64(p)] = struct{}{}
	}
}

// Add counts one event.
func (s *Summary) Add(ev trace.Event) {
	s.Events++
	t := int64(ev.Time())
	if !s.started {
		s.FirstNS, s.started = t, true
	}
	s.LastNS = t
	s.DurationNS = s.LastNS - s.FirstNS
	s.Kinds[ev.Kind().String()]++
	s.noteG(ev.Goroutine())
	s.noteP(ev.Proc())
	if th := ev.Thread(); th != trace.NoThread {
		s.ms[int64(th)] = struct{}{}
	}
	if st := ev.Stack(); st != trace.NoStack {
		s.Stacks++
		s.Frames += len(s.stacks.Get(st).Frames)
	}
	switch ev.Kind() {
	case trace.EventSync:
		s.Syncs++
		if ev.Sync().ClockSnapshot != nil {
			s.ClockSnaps++
		}
	case trace.EventMetric:
		s.Metrics[ev.Metric().Name]++
	case trace.EventLabel:
		s.Labels++
	case trace.EventStackSample:
		s.CPUSamples++
		if ev.Goroutine() != trace.NoGoroutine {
			s.CPUSamplesG++
		}
	case trace.EventRangeBegin:
		s.Ranges[ev.Range().Name]++
	case trace.EventRangeActive:
		s.RangeActives[ev.Range().Name]++
	case trace.EventRangeEnd:
		s.RangeEnds[ev.Range().Name]++
	case trace.EventTaskBegin:
		s.Tasks++
	case trace.EventTaskEnd:
		s.TaskEnds++
	case trace.EventRegionBegin:
		s.Regions++
	case trace.EventRegionEnd:
		s.RegionEnds++
	case trace.EventLog:
		s.Logs++
		c := ev.Log().Category
		if s.LogCategories[c] == 0 {
			s.LogFirstNS[c] = t
		}
		s.LogCategories[c]++
	case trace.EventExperimental:
		s.Experimental++
	case trace.EventStateTransition:
		s.addTransition(ev.StateTransition())
	}
}

func (s *Summary) addTransition(st trace.StateTransition) {
	switch st.Resource.Kind {
	case trace.ResourceGoroutine:
		from, to := st.Goroutine()
		s.noteG(st.Resource.Goroutine())
		s.Transitions["goroutine"][from.String()+"->"+to.String()]++
		switch {
		case from == trace.GoNotExist && to != trace.GoNotExist:
			s.Creates++
		case from == trace.GoRunning && to == trace.GoWaiting:
			s.BlockReasons[st.Reason]++
		case from == trace.GoRunning && to == trace.GoRunnable:
			s.StopReasons[st.Reason]++
		case from == trace.GoRunning && to == trace.GoSyscall:
			s.Syscalls++
		}
	case trace.ResourceProc:
		from, to := st.Proc()
		s.noteP(st.Resource.Proc())
		s.Transitions["proc"][from.String()+"->"+to.String()]++
	}
}

// Finish fills the derived fields; call it after the last Add.
func (s *Summary) Finish() {
	s.Goroutines = len(s.gs)
	s.Procs = len(s.ps)
	s.Threads = len(s.ms)
	s.Distinct = s.stacks.Distinct()
	// The reader emits one Sync at the start of every generation plus a final
	// one after the last (x/exp/trace reader.go, installGen / nextGenWithSpill).
	if s.Syncs > 0 {
		s.Generations = s.Syncs - 1
	}
}
