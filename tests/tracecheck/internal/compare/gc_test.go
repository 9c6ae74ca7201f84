package compare

import "testing"

// heapGoalAtStart: OURS' value at REF's first HeapGoal is the sample nearest to it in
// time (the latest before, or the first up to TolNS after), not the latest up to TolNS
// after: a go1.19 gc run writes the next goal 1.6 ms after the first.
func TestHeapGoalAtStartTakesTheNearestSample(t *testing.T) {
	goal := func(ts int64, v uint64) Rec { return Rec{T: ts, Key: metricHeapGoal, Val: v} }
	run := func(ours ...Rec) Row {
		c := &cmp{
			ref:  &Trace{Metrics: []Rec{goal(5_573_794, 2097152), goal(7_210_933, 2874344)}},
			ours: &Trace{First: 0, Metrics: ours},
			o:    Options{TolNS: 5_000_000},
			rep:  &Report{},
		}
		c.heapGoalAtStart()
		if len(c.rep.Rows) != 1 {
			t.Fatalf("rows: %+v", c.rep.Rows)
		}
		return c.rep.Rows[0]
	}
	// Seen on go1.19 gc (suite 51): OURS' first goal (read at launch) long before, the
	// same two goals as REF 10 us later.
	if r := run(goal(-5_500_000, 4194304), goal(5_578_000, 2097152), goal(7_211_000, 2874344)); !r.Pass {
		t.Errorf("the goal written 4 us after REF's must match: %+v", r)
	}
	if r := run(goal(5_500_000, 2097152), goal(7_211_000, 2874344)); !r.Pass {
		t.Errorf("the goal written before REF's must match: %+v", r)
	}
	if r := run(goal(5_500_000, 4194304), goal(7_211_000, 2874344)); r.Pass {
		t.Errorf("another goal at REF's start must fail: %+v", r)
	}
}
