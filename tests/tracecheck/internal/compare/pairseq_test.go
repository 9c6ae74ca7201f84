package compare

import "testing"

// pairSeqWrong is pairSeq that also counts the pairs whose keys differ.
func pairSeqWrong(a, b []Rec, tol int64) (paired, refOnly, oursOnly, wrong int) {
	paired, refOnly, oursOnly = pairSeq(a, b, tol, func(x, y Rec) {
		if x.Key != y.Key {
			wrong++
		}
	})
	return
}

// A goroutine that blocks every 13 us (a ping-pong) where OURS stamps one
// block 124 us early (the thread was descheduled between the probe and the
// runtime's own timestamp) and one 3 ms early (beyond the tolerance): the
// first must still pair in order, the second is one unpaired record on each
// side, and nothing else may slip.
func TestPairSeqKeepsOrderWhenStampsDisagree(t *testing.T) {
	const n, step, tol = 2000, 13_000, 1_000_000
	var a, b []Rec
	for i := 0; i < n; i++ {
		ts := int64(i) * step
		if i == 700 || i == 1500 {
			ts += 5_000_000 // the goroutine stayed parked for 5 ms
		}
		if i > 700 {
			ts += 5_000_000
		}
		if i > 1500 {
			ts += 5_000_000
		}
		a = append(a, Rec{T: ts, G: 1, Key: []string{"chan send", "chan receive"}[i%2]})
		d := int64(-600)
		switch i {
		case 700:
			d = -124_000
		case 1500:
			d = -3_000_000
		}
		b = append(b, Rec{T: ts + d, G: 1, Key: a[i].Key})
	}
	p, ro, oo, wrong := pairSeqWrong(a, b, tol)
	if p != n-1 || ro != 1 || oo != 1 || wrong != 0 {
		t.Errorf("paired %d ref-only %d ours-only %d with another reason %d; want %d, 1, 1, 0", p, ro, oo, wrong, n-1)
	}
}

// One event missing on each side at different places: the rest pairs.
func TestPairSeqMissingEvents(t *testing.T) {
	var a, b []Rec
	for i := 0; i < 100; i++ {
		ts := int64(i) * 1000
		if i != 30 {
			a = append(a, Rec{T: ts})
		}
		if i != 60 {
			b = append(b, Rec{T: ts + 10})
		}
	}
	p, ro, oo := pairSeq(a, b, 500, nil)
	if p != 98 || ro != 1 || oo != 1 {
		t.Errorf("paired %d ref-only %d ours-only %d; want 98, 1, 1", p, ro, oo)
	}
}

// REF events the reader pushed forward after a generation start (their times
// are upper bounds, 1 ns apart) pair in order with OURS's true, 40 ms
// earlier, stamps; without the bound they are all missing.
func TestPairSeqPushedTimes(t *testing.T) {
	var a, b []Rec
	for i := 0; i < 300; i++ {
		ts := int64(i) * 100_000
		b = append(b, Rec{T: ts})
		if i >= 100 && i < 200 {
			ts = 20_000_000 + int64(i) // pushed to the generation start
		}
		a = append(a, Rec{T: ts})
	}
	upper := func(r Rec) bool { return r.T >= 20_000_000 && r.T < 20_001_000 }
	if p, _, _ := pairSeqBounded(a, b, 5_000_000, upper, nil); p != 300 {
		t.Errorf("paired %d with the bound, want 300", p)
	}
	if p, _, _ := pairSeq(a, b, 5_000_000, nil); p == 300 {
		t.Errorf("paired all 300 without the bound: the case does not test the bound")
	}
}

// A goroutine alternating two reasons every 8 us (time.Sleep, then a channel
// receive: go1.22 midrun's goroutine 6) with one REF-only block early and one
// OURS-only block late: the rest pairs with the same reasons. Pairing by the
// most pairs first slipped by one between the two (one more pair, every pair
// in between with the other reason: 84 "wrong reasons" in a real run).
func TestPairSeqDoesNotSlipAcrossAlternatingKeys(t *testing.T) {
	const n, step, tol = 400, 8_000, 5_000_000
	keys := []string{"sleep", "chan receive"}
	var a, b []Rec
	for i := 0; i < n; i++ {
		ts := int64(i) * step
		if i != 350 {
			a = append(a, Rec{T: ts, G: 6, Key: keys[i%2]})
		}
		if i != 20 {
			b = append(b, Rec{T: ts + 300, G: 6, Key: keys[i%2]})
		}
	}
	p, ro, oo, wrong := pairSeqWrong(a, b, tol)
	if p != n-2 || ro != 1 || oo != 1 || wrong != 0 {
		t.Errorf("paired %d ref-only %d ours-only %d with another reason %d; want %d, 1, 1, 0", p, ro, oo, wrong, n-2)
	}
	// A lone wrong reason still pairs as a wrong reason.
	b2 := append([]Rec(nil), a...)
	b2[100].Key = "select"
	p, ro, oo, wrong = pairSeqWrong(a, b2, tol)
	if p != len(a) || ro != 0 || oo != 0 || wrong != 1 {
		t.Errorf("paired %d ref-only %d ours-only %d with another reason %d; want %d, 0, 0, 1", p, ro, oo, wrong, len(a))
	}
}
