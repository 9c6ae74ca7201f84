package compare

import "testing"

func recs(keys ...string) []Rec {
	var out []Rec
	for i, k := range keys {
		out = append(out, Rec{T: int64(i), Key: k})
	}
	return out
}

func TestShareMatch(t *testing.T) {
	if got := shareMatch(recs("a", "a", "a", "b"), recs("a", "b", "a", "a", "a", "b", "a", "a")); got != 1 {
		t.Errorf("same shares (3/4 a): got %v, want 1", got)
	}
	if got := shareMatch(recs("a", "a"), recs("b", "b")); got != 0 {
		t.Errorf("disjoint: got %v, want 0", got)
	}
	if got := shareMatch(recs("a", "a", "a", "b"), recs("a", "b")); got < 0.749 || got > 0.751 {
		t.Errorf("3/4 vs 1/2: got %v, want 0.75", got)
	}
	if got := shareMatch(nil, recs("a")); got != 0 {
		t.Errorf("empty side: got %v, want 0", got)
	}
}

func TestCPURowsOnlyWithSamples(t *testing.T) {
	c := &cmp{ref: &Trace{}, ours: &Trace{}, rep: &Report{}, w: Window{StartNS: 0, EndNS: 1000}}
	c.cpu()
	if len(c.rep.Rows) != 0 {
		t.Fatalf("no samples: got rows %+v", c.rep.Rows)
	}
	many := func(k string, n int) []Rec {
		var out []Rec
		for i := 0; i < n; i++ {
			out = append(out, Rec{T: int64(i), Key: k})
		}
		return out
	}
	c = &cmp{ref: &Trace{Samples: many("main.spin", 30)}, ours: &Trace{Samples: many("main.other", 30)}, rep: &Report{},
		w: Window{StartNS: 0, EndNS: 1000}}
	c.cpu()
	if len(c.rep.Rows) != 2 || !c.rep.Rows[0].Checked || c.rep.Rows[0].Pass {
		t.Fatalf("different leaf functions must fail the checked share row: %+v", c.rep.Rows)
	}
	c = &cmp{ref: &Trace{Samples: many("main.spin", 30)}, ours: &Trace{Samples: many("main.spin", 25)}, rep: &Report{},
		w: Window{StartNS: 0, EndNS: 1000}}
	c.cpu()
	if !c.rep.Rows[0].Pass || c.rep.Rows[1].Checked {
		t.Fatalf("same leaf: share row passes, count row unchecked: %+v", c.rep.Rows)
	}
}
