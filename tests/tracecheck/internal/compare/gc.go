package compare

import (
	"fmt"
	"sort"
	"strings"
)

// GC-side checks (gotraced issue 5): what the runtime writes for the garbage
// collector (runtime/traceruntime.go GCStart/GCDone, STWStart/STWDone,
// HeapAlloc, HeapGoal, GCSweep*, GCMarkAssist*), as x/exp/trace presents it:
// ranges "GC concurrent mark phase", "stop-the-world (<reason>)", "GC
// incremental sweep", "GC mark assist" and metrics "/memory/classes/heap/
// objects:bytes" (HeapAlloc), "/gc/heap/goal:bytes" (HeapGoal).
//
// Checked:
//   - GC cycles begun in the window: the same number (exactly);
//   - stop-the-world ranges begun in the window: the same number per reason
//     (exactly), except the tracer's own ("start trace", "stop trace"): the
//     in-process tracer writes its start STW only once tracing is on, long
//     after stopTheWorldWithSema began (runtime/trace.go StartTrace: "We
//     didn't trace this above, so trace it now"), so it is not at the same
//     time in both files; reported only;
//   - heap values: each REF HeapAlloc / HeapGoal sample in the part of the
//     window where OURS has samples of that metric has an OURS sample within
//     TolNS whose value is within 1% (>= 99% of them). OURS knows
//     gcController.heapLive from its first record (launch mode: from 0; --pid:
//     read from the target's memory at attach), so REF samples with no OURS
//     sample at all fail the row.
// Reported only: mark assist and sweep ranges (not captured yet: their counts
// must not be read as a failure), and the sample counts.

const (
	metricHeapAlloc = "/memory/classes/heap/objects:bytes"
	metricHeapGoal  = "/gc/heap/goal:bytes"
	gcMarkRange     = "GC concurrent mark phase"
	stwPrefix       = "stop-the-world ("
	heapTolerance   = 0.01
	heapMinMatch    = 0.99
)

func tracerSTW(k string) bool {
	return k == stwPrefix+"start trace)" || k == stwPrefix+"stop trace)"
}

func (c *cmp) gc() {
	a, b := c.filter(c.ref.Ranges), c.filter(c.ours.Ranges)
	count := func(rs []Rec, f func(string) bool) map[string]int {
		m := map[string]int{}
		for _, r := range rs {
			if f(r.Key) {
				m[r.Key]++
			}
		}
		return m
	}
	exact := func(class string, f func(string) bool, checked bool, note string) {
		ra, rb := count(a, f), count(b, f)
		diff, na, nb := l1Diff(ra, rb)
		var off []string
		for _, k := range sortedKeys(mergeKeys(ra, rb)) {
			if ra[k] != rb[k] {
				off = append(off, fmt.Sprintf("%s: ref %d ours %d", k, ra[k], rb[k]))
			}
		}
		if len(off) > 0 {
			note = strings.TrimPrefix(note+"; "+strings.Join(off, ", "), "; ")
		}
		c.addRow(Row{Class: class, Kind: "diff", Ref: na, Ours: nb, Figure: diff, Limit: 0, Checked: checked, Note: note})
	}
	exact("GC cycles (exact)", func(k string) bool { return k == gcMarkRange }, true, "")
	exact("stop-the-world per reason (exact)", func(k string) bool {
		return strings.HasPrefix(k, stwPrefix) && !tracerSTW(k)
	}, true, "")
	exact("stop-the-world of the tracer itself", tracerSTW, false, "in-process STWBegin is written after the STW began (trace.go StartTrace)")
	exact("GC mark assists", func(k string) bool { return k == "GC mark assist" }, false, "reported only")
	exact("GC incremental sweeps", func(k string) bool { return k == "GC incremental sweep" }, false, "not captured yet (reported only)")
	{
		la, lb := countBy(c.filter(c.ref.Labels), byKey), countBy(c.filter(c.ours.Labels), byKey)
		diff, na, nb := l1Diff(la, lb)
		c.addRow(Row{Class: "GC worker labels (per label)", Kind: "diff", Ref: na, Ours: nb, Figure: diff,
			Limit: c.o.MaxCountDiff, Checked: false, Note: "reported only"})
	}
	c.heapValues("HeapAlloc", metricHeapAlloc)
	c.heapValues("HeapGoal", metricHeapGoal)
}

func mergeKeys(a, b map[string]int) map[string]int {
	m := map[string]int{}
	for k := range a {
		m[k] = 1
	}
	for k := range b {
		m[k] = 1
	}
	return m
}

// heapValues: REF samples of metric `name` (inside the span where OURS has
// samples of it) that OURS matches within TolNS and 1% of the value.
func (c *cmp) heapValues(label, name string) {
	pick := func(rs []Rec) []Rec {
		var out []Rec
		for _, r := range c.filter(rs) {
			if r.Key == name {
				out = append(out, r)
			}
		}
		return out
	}
	a, b := pick(c.ref.Metrics), pick(c.ours.Metrics)
	row := Row{Class: label + " values within 1%", Kind: "match", Ref: len(a), Ours: len(b), Limit: heapMinMatch, Checked: true}
	if len(b) > 0 {
		lo, hi := b[0].T-c.o.TolNS, b[len(b)-1].T+c.o.TolNS
		var in []Rec
		for _, r := range a {
			if r.T >= lo && r.T <= hi {
				in = append(in, r)
			}
		}
		if skipped := len(a) - len(in); skipped > 0 {
			row.Note = fmt.Sprintf("%d REF samples outside OURS' span", skipped)
		}
		a = in
	}
	for _, r := range a {
		i := sort.Search(len(b), func(i int) bool { return b[i].T >= r.T-c.o.TolNS })
		ok := false
		for ; i < len(b) && b[i].T <= r.T+c.o.TolNS; i++ {
			if within(r.Val, b[i].Val, heapTolerance) {
				ok = true
				break
			}
		}
		if ok {
			row.Matched++
		} else {
			row.RefOnly++
			c.rep.example("%s %d at t=%d: no OURS value within 1%% nearby", label, r.Val, r.T)
		}
	}
	row.Figure = ratio(row.Matched, len(a))
	c.addRow(row)
}

func within(ref, ours uint64, tol float64) bool {
	d := float64(ref) - float64(ours)
	if d < 0 {
		d = -d
	}
	return d <= tol*float64(ref) || (ref == 0 && ours == 0)
}
