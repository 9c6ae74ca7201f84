package main

import (
	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/traceio"
)

// eventJSON is the --events-json form of one event: the fields common to all
// events plus the kind-specific details that the comparisons use.
func eventJSON(ev trace.Event) map[string]any {
	m := map[string]any{
		"kind": ev.Kind().String(),
		"time": int64(ev.Time()),
		"g":    int64(ev.Goroutine()),
		"p":    int64(ev.Proc()),
		"m":    int64(ev.Thread()),
	}
	if fr := traceio.StackFrames(ev.Stack()); len(fr) > 0 {
		m["stack"] = frames(fr)
	}
	switch ev.Kind() {
	case trace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			from, to := st.Goroutine()
			m["resource"], m["id"] = "goroutine", int64(st.Resource.Goroutine())
			m["from"], m["to"] = from.String(), to.String()
		case trace.ResourceProc:
			from, to := st.Proc()
			m["resource"], m["id"] = "proc", int64(st.Resource.Proc())
			m["from"], m["to"] = from.String(), to.String()
		}
		if st.Reason != "" {
			m["reason"] = st.Reason
		}
		if fr := traceio.StackFrames(st.Stack); len(fr) > 0 {
			m["transition_stack"] = frames(fr)
		}
	case trace.EventRangeBegin, trace.EventRangeActive, trace.EventRangeEnd:
		r := ev.Range()
		m["name"], m["scope"] = r.Name, r.Scope.String()
	case trace.EventMetric:
		mt := ev.Metric()
		m["name"], m["value"] = mt.Name, mt.Value.String()
	case trace.EventLabel:
		m["label"], m["resource"] = ev.Label().Label, ev.Label().Resource.String()
	case trace.EventTaskBegin, trace.EventTaskEnd:
		t := ev.Task()
		m["task"], m["parent"], m["type"] = uint64(t.ID), uint64(t.Parent), t.Type
	case trace.EventRegionBegin, trace.EventRegionEnd:
		r := ev.Region()
		m["task"], m["type"] = uint64(r.Task), r.Type
	case trace.EventLog:
		l := ev.Log()
		m["task"], m["category"], m["message"] = uint64(l.Task), l.Category, l.Message
	case trace.EventSync:
		s := ev.Sync()
		m["n"] = s.N
		if c := s.ClockSnapshot; c != nil {
			m["clock"] = map[string]any{"trace": int64(c.Trace), "mono": c.Mono, "wall_unix_ns": c.Wall.UnixNano()}
		}
	}
	return m
}

func frames(fr []trace.StackFrame) []map[string]any {
	out := make([]map[string]any, len(fr))
	for i, f := range fr {
		out[i] = map[string]any{"pc": f.PC, "func": f.Func, "file": f.File, "line": f.Line}
	}
	return out
}
