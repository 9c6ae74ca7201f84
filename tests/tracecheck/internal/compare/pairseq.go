package compare

import "sort"

// pairRank bounds how far (in rank, on OURS's side) from the time-nearest
// record a pairing candidate may be. The two files describe the same run, so
// a goroutine's n-th event in one is, up to the odd missing or extra event,
// its n-th in the other: the true partner is a rank or two away even when its
// timestamp is far off (a thread descheduled between the probe and the
// runtime's own timestamp, e.g. Go 1.22 park_m writes GoPark after
// casgstatus: runtime/proc.go park_m).
const pairRank = 16

// pairSeq pairs two time-ordered record lists of one goroutine (a = REF,
// b = OURS) in order: of all order-preserving pairings whose pairs are
// within tol of each other it takes one with the highest score (2 per pair
// with the same key, 1 per pair with different keys), then the most pairs,
// then the smallest total time difference (a sparse longest-common-subsequence over the candidates,
// O(n*pairRank*log m)).
//
// Pairing by time alone (nearest neighbour) fails when events of one
// goroutine come closer together than the timestamps' disagreement: a 20k
// round trip ping-pong blocks every ~13 us, while one side's stamp can be
// 0.1-2 ms late when the kernel preempts the thread between the two
// stamping points; one such event made the nearest-neighbour walk slip by
// one for many events (go1.22 pingpong: 8% of blocks unpaired with equal
// counts). Order is what both files agree on; time only decides which
// events are missing. Keys weigh less than pairs (a goroutine whose stamps
// disagree by more than its event spacing, e.g. a send that the runtime
// stamped 50 us later than the probe next to the receives that follow): a
// wrong reason still shows as a wrong reason, not as a missing event.
func pairSeq(a, b []Rec, tol int64, pair func(x, y Rec)) (paired, refOnly, oursOnly int) {
	return pairSeqBounded(a, b, tol, nil, pair)
}

// pairSeqBounded is pairSeq where upper(a[i]) says that REF record's time is
// only an upper bound (Trace.Pushed): it pairs with an OURS record up to tol
// after it or any time before it, its candidates taken around the rank that
// the last REF record with a real time paired near.
func pairSeqBounded(a, b []Rec, tol int64, upper func(Rec) bool, pair func(x, y Rec)) (paired, refOnly, oursOnly int) {
	if len(a) == 0 || len(b) == 0 {
		return 0, len(a), len(b)
	}
	type cell struct {
		j     int32
		prev  int32 // index into cells of the previous pair, -1 none
		pairs int32
		other int32 // pairs with different keys up to here
		dt    int64 // total |time difference| of the pairs up to here
	}
	// score: a pair with the same key counts 2, one with another key 1, so a
	// lone wrong reason still pairs (1 > 0: it shows as a wrong reason, not as
	// two missing events), but one missing event cannot make the pairing slip
	// by one along a goroutine whose keys alternate (e.g. time.Sleep and a
	// channel receive every 8 us): slipping buys one more pair at the price
	// of every pair after it having another key. Seen on go1.22 midrun: one
	// REF-only block turned into 84 "wrong reasons" where the reasons per
	// goroutine agreed exactly.
	score := func(x *cell) int32 { return 2*x.pairs - x.other }
	betterCell := func(x, y *cell) bool {
		if sx, sy := score(x), score(y); sx != sy {
			return sx > sy
		}
		if x.pairs != y.pairs {
			return x.pairs > y.pairs
		}
		if x.other != y.other {
			return x.other < y.other
		}
		return x.dt < y.dt
	}
	// fen is a Fenwick tree over b's ranks (1-based) holding the best cell
	// that ends at a rank <= j among the rows already done.
	fen := make([]int32, len(b)+1)
	for k := range fen {
		fen[k] = -1
	}
	var cells []cell
	query := func(j int) int32 { // best cell with b-rank < j (0-based j)
		best := int32(-1)
		for k := j; k > 0; k -= k & -k {
			c := fen[k]
			if c >= 0 && (best < 0 || betterCell(&cells[c], &cells[best])) {
				best = c
			}
		}
		return best
	}
	update := func(j int, c int32) {
		for k := j + 1; k < len(fen); k += k & -k {
			o := fen[k]
			if o < 0 || betterCell(&cells[c], &cells[o]) {
				fen[k] = c
			}
		}
	}
	rowStart := make([]int32, len(a)+1)
	off := 0 // near - i of the last REF record with a real time
	for i := range a {
		rowStart[i] = int32(len(cells))
		t := a[i].T
		bound := upper != nil && upper(a[i])
		near := min(max(i+off, 0), len(b))
		if !bound {
			near = sort.Search(len(b), func(k int) bool { return b[k].T >= t })
			off = near - i
		}
		lo, hi := max(0, near-pairRank), min(len(b), near+pairRank+1)
		for j := lo; j < hi; j++ {
			d := absI64(b[j].T - t)
			if d > tol && !(bound && b[j].T < t) {
				continue
			}
			c := cell{j: int32(j), prev: query(j), pairs: 1, dt: d}
			if a[i].Key != b[j].Key {
				c.other = 1
			}
			if c.prev >= 0 {
				c.pairs += cells[c.prev].pairs
				c.other += cells[c.prev].other
				c.dt += cells[c.prev].dt
			}
			cells = append(cells, c)
		}
		// Only now may row i's cells serve later rows (a REF record pairs once).
		for k := rowStart[i]; k < int32(len(cells)); k++ {
			update(int(cells[k].j), k)
		}
	}
	rowStart[len(a)] = int32(len(cells))
	end := query(len(b))
	if end < 0 {
		return 0, len(a), len(b)
	}
	// Walk back, recovering each cell's REF row from rowStart.
	var chain []int32
	for k := end; k >= 0; k = cells[k].prev {
		chain = append(chain, k)
	}
	rowOf := func(k int32) int {
		return sort.Search(len(a), func(i int) bool { return rowStart[i+1] > k })
	}
	for n := len(chain) - 1; n >= 0; n-- {
		k := chain[n]
		if pair != nil {
			pair(a[rowOf(k)], b[cells[k].j])
		}
	}
	paired = len(chain)
	return paired, len(a) - paired, len(b) - paired
}

// windowed pairs two files' records of one class and keeps those that belong
// to the compared window: a pair when its REF record is inside (REF's clock
// decides), an unpaired record when it is itself inside. Filtering each side
// by its own timestamps first would split a pair straddling a window edge
// into one missing and one extra event whenever the two stamps of the event
// fall on either side of it (seen on go1.22 syscalls: the first sleep after
// trace.Start stamped 1 ms apart, right at the window start). Pairing runs
// over the window widened by TolNS on both sides. In goid window mode the
// window is not a time span: plain filter, then pairing.
func (c *cmp) windowed(refAll, oursAll []Rec) (a, b []Rec, pairs [][2]Rec) {
	if c.life != nil {
		a, b = c.filter(refAll), c.filter(oursAll)
		c.pairPerG(a, b, func(x, y Rec) { pairs = append(pairs, [2]Rec{x, y}) })
		return a, b, pairs
	}
	wide := func(rs []Rec) []Rec {
		i := sort.Search(len(rs), func(i int) bool { return rs[i].T >= c.w.StartNS-c.o.TolNS })
		j := sort.Search(len(rs), func(i int) bool { return rs[i].T > c.w.EndNS+c.o.TolNS })
		return rs[i:max(i, j)]
	}
	inside := func(r Rec) bool { return r.T >= c.w.StartNS && r.T <= c.w.EndNS }
	wa, wb := wide(refAll), wide(oursAll)
	type key struct {
		g, t int64
	}
	pairedOurs := map[key]bool{}
	c.pairPerG(wa, wb, func(x, y Rec) {
		pairedOurs[key{y.G, y.T}] = true
		if inside(x) {
			pairs = append(pairs, [2]Rec{x, y})
			b = append(b, y)
		}
	})
	for _, r := range wa {
		if inside(r) {
			a = append(a, r)
		}
	}
	for _, r := range wb {
		if !pairedOurs[key{r.G, r.T}] && inside(r) {
			b = append(b, r)
		}
	}
	return a, b, pairs
}

// pushed reports whether a REF record's time is only an upper bound (inside
// one of REF's Pushed spans).
func (c *cmp) pushed(r Rec) bool {
	ps := c.ref.Pushed
	k := sort.Search(len(ps), func(k int) bool { return ps[k][1] >= r.T })
	return k < len(ps) && ps[k][0] <= r.T
}
