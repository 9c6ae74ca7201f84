package compare

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Options steer windowing, pairing and the pass/fail thresholds.
type Options struct {
	// Window: "time" compares only what falls in the time span covered by
	// both files (the default). "goid" is for clocks that cannot be trusted:
	// per-goroutine classes keep the goroutines whose whole life (creation
	// and exit) is in both files, whatever the times; goroutine creations are
	// compared over the ids one file created that the other created too or
	// never saw at all although created inside the time window; classes
	// without a goroutine (GC ranges, metrics) still use the time window.
	Window string
	// Align: "auto" (clock snapshots, then the median offset of goroutine
	// creations matched by id), "clock" (snapshots only), "none".
	Align string
	// EdgeNS trims both ends of the common time window (at most a tenth of
	// it each) so that events straddling a boundary do not count as missing.
	EdgeNS int64
	// TolNS is the largest time difference for pairing two records.
	TolNS int64
	// ClipAtSync ends the window at the first generation start of the
	// longer file after the last generation start of the shorter one. For a
	// file cut by a generation advance (a flight-recorder snapshot) whose
	// last generation overlaps the next, missing one in time: the runtime
	// keeps writing the old generation on Ms that have not yet noticed the
	// advance (runtime/trace.go traceAdvance).
	ClipAtSync bool

	MinGoroutineMatch float64 // goroutines created in the window: same id, creator, start function
	MaxCountDiff      float64 // block/unblock/syscall counts
	MinStackMatch     float64 // identical frames on paired creates/blocks/syscalls
}

// DefaultOptions are the brief's thresholds.
func DefaultOptions() Options {
	return Options{Window: "time", Align: "auto", EdgeNS: 1_000_000, TolNS: 1_000_000,
		MinGoroutineMatch: 1.0, MaxCountDiff: 0.02, MinStackMatch: 0.95}
}

// Row is one line of the fidelity table. For Kind "match" Figure is a
// fraction that must reach Limit; for "diff" it is a relative count
// difference that must not exceed Limit. Checked false: reported only.
type Row struct {
	Class    string  `json:"class"`
	Kind     string  `json:"kind"`
	Ref      int     `json:"ref"`
	Ours     int     `json:"ours"`
	Matched  int     `json:"matched"`
	RefOnly  int     `json:"ref_only"`
	OursOnly int     `json:"ours_only"`
	Figure   float64 `json:"figure"`
	Limit    float64 `json:"limit"`
	Checked  bool    `json:"checked"`
	Pass     bool    `json:"pass"`
	Note     string  `json:"note,omitempty"`
}

// Pair counts per key of both files.
type Pair struct {
	Ref  int `json:"ref"`
	Ours int `json:"ours"`
}

// Side describes one input file.
type Side struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Events  int    `json:"events"`
	FirstNS int64  `json:"first_ns"`
	LastNS  int64  `json:"last_ns"`
}

// Window is the compared span, on REF's clock.
type Window struct {
	Mode    string `json:"mode"`
	Clipped bool   `json:"clipped_at_sync"`
	StartNS int64  `json:"start_ns"`
	EndNS   int64  `json:"end_ns"`
	// ClockShiftNS was added to OURS times from the clock snapshots;
	// SkewNS is the median OURS-REF creation time offset that remained,
	// also subtracted when Align is "auto".
	ClockShiftNS int64 `json:"clock_shift_ns"`
	SkewNS       int64 `json:"skew_ns"`
	SkewSamples  int   `json:"skew_samples"`
	AppliedNS    int64 `json:"applied_shift_ns"`
}

// Report is the full comparison; its JSON form is tracecompare --json.
type Report struct {
	Ref          Side            `json:"ref"`
	Ours         Side            `json:"ours"`
	Window       Window          `json:"window"`
	Rows         []Row           `json:"rows"`
	BlockReasons map[string]Pair `json:"block_reasons"`
	StopReasons  map[string]Pair `json:"stop_reasons"`
	Ranges       map[string]Pair `json:"ranges"`
	Metrics      map[string]Pair `json:"metrics"`
	Examples     []string        `json:"examples"`
	Failures     []string        `json:"failures"`
	Pass         bool            `json:"pass"`
}

const maxExamples = 30

func (r *Report) example(format string, args ...any) {
	if len(r.Examples) < maxExamples {
		r.Examples = append(r.Examples, fmt.Sprintf(format, args...))
	}
}

func side(t *Trace) Side {
	return Side{Path: t.Path, Version: t.Version, Events: t.Events, FirstNS: t.First, LastNS: t.Last}
}

// Compare matches OURS against REF.
func Compare(ref, ours *Trace, o Options) (*Report, error) {
	rep := &Report{Ref: side(ref), Ours: side(ours), Examples: []string{}, Failures: []string{}}
	w, err := align(ref, ours, o)
	if err != nil {
		return nil, err
	}
	ours = shifted(ours, w.AppliedNS)
	{
		// Up to the last event either side's program wrote (Trace.Active): after
		// it, REF's StopTrace has stopped recording.
		lo, hi := max(ref.First, ours.First), min(ref.Active, ours.Active)
		if lo >= hi {
			return nil, fmt.Errorf("the traces do not overlap in time: ref [%d,%d] ours [%d,%d] (after a shift of %d ns)",
				ref.First, ref.Last, ours.First, ours.Last, w.AppliedNS)
		}
		if o.ClipAtSync {
			nl, nh := clipAtSync(ref, ours, lo, hi, o.TolNS)
			w.Clipped, lo, hi = nl != lo || nh != hi, nl, nh
		}
		if lo >= hi {
			return nil, fmt.Errorf("no common window left after clipping at generation starts")
		}
		edge := min(o.EdgeNS, (hi-lo)/10)
		w.StartNS, w.EndNS = lo+edge, hi-edge
	}
	rep.Window = w
	c := &cmp{ref: ref, ours: ours, o: o, w: w, rep: rep}
	if o.Window == "goid" {
		c.life = lifetimes(ref, ours)
	}
	c.goroutines()
	c.blocks()
	c.unblocks()
	c.syscalls()
	c.user()        // user.go (before stacks: adds its pairs)
	c.sweepStacks() // gc.go (before stacks: adds its pairs)
	c.stacks()
	c.stops()
	c.exits()
	c.ranges()
	c.annotations()
	c.metrics()
	c.cpu() // cpu.go
	c.gc()  // gc.go
	rep.Pass = true
	for _, row := range rep.Rows {
		if row.Checked && !row.Pass {
			rep.Pass = false
			rel := ">="
			if row.Kind == "diff" {
				rel = "<="
			}
			rep.Failures = append(rep.Failures, fmt.Sprintf("%s: %s %.4f, want %s %.4f", row.Class, row.Kind, row.Figure, rel, row.Limit))
		}
	}
	return rep, nil
}

// align computes how much to add to OURS times to put them on REF's clock.
func align(ref, ours *Trace, o Options) (Window, error) {
	w := Window{Mode: o.Window}
	switch o.Window {
	case "time", "goid":
	default:
		return w, fmt.Errorf("unknown window mode %q (time, goid)", o.Window)
	}
	switch o.Align {
	case "none":
		return w, nil
	case "auto", "clock":
	default:
		return w, fmt.Errorf("unknown align mode %q (auto, clock, none)", o.Align)
	}
	if ref.HasClock && ours.HasClock {
		// mono = time + MonoMinusTrace on each side, so
		// time_ref = time_ours + ours.MonoMinusTrace - ref.MonoMinusTrace.
		w.ClockShiftNS = ours.MonoMinusTrace - ref.MonoMinusTrace
	}
	byID := map[int64]int64{}
	for _, r := range ref.Creates {
		byID[r.G] = r.T
	}
	var ds []int64
	for _, r := range ours.Creates {
		if t, ok := byID[r.G]; ok {
			ds = append(ds, r.T+w.ClockShiftNS-t)
		}
	}
	w.SkewSamples = len(ds)
	w.SkewNS = median(ds)
	w.AppliedNS = w.ClockShiftNS
	if o.Align == "auto" {
		w.AppliedNS -= w.SkewNS
	}
	return w, nil
}

// clipAtSync narrows [lo, hi] to whole generations present in both files:
// a generation's time span overlaps its neighbours' (Ms keep writing the old
// generation until they notice an advance, runtime/trace.go traceAdvance), so
// a file cut at a generation boundary lacks the neighbour's events that fall
// inside its own span. The end moves to the longer file's first generation
// start after the shorter file's last one; the start, if one file starts
// later, to that file's second generation start.
func clipAtSync(a, b *Trace, lo, hi, tol int64) (int64, int64) {
	short, long := a, b
	if b.Last < a.Last {
		short, long = b, a
	}
	if n := len(short.Syncs); n > 0 && long.Last > short.Last+tol {
		for _, s := range long.Syncs {
			if s > short.Syncs[n-1]+tol && s < hi {
				hi = s
				break
			}
		}
	}
	late, early := a, b
	if b.First > a.First {
		late, early = b, a
	}
	if late.First > early.First+tol && len(late.Syncs) >= 2 {
		lo = max(lo, late.Syncs[1])
	}
	return lo, hi
}

func shifted(t *Trace, d int64) *Trace {
	if d == 0 {
		return t
	}
	c := *t
	c.First += d
	c.Last += d
	c.Active += d
	c.Syncs = make([]int64, len(t.Syncs))
	for i, s := range t.Syncs {
		c.Syncs[i] = s + d
	}
	for _, p := range []*[]Rec{&c.Creates, &c.Exits, &c.Blocks, &c.Unblocks, &c.Stops, &c.Syscalls,
		&c.Ranges, &c.Tasks, &c.TaskEnds, &c.Regions, &c.RegionEnds, &c.Logs, &c.Metrics, &c.Samples, &c.Labels,
		&c.SweepEnds, &c.GCEnds} {
		rs := make([]Rec, len(*p))
		for i, r := range *p {
			r.T += d
			rs[i] = r
		}
		*p = rs
	}
	return &c
}

type cmp struct {
	ref, ours *Trace
	o         Options
	w         Window
	rep       *Report
	// paired records for the stack figure
	stackPairs []stackPair
	// goid mode: goroutines created and exited in both files
	life map[int64]bool
}

func lifetimes(ref, ours *Trace) map[int64]bool {
	n := map[int64]int{}
	for _, t := range []*Trace{ref, ours} {
		for _, rs := range [][]Rec{t.Creates, t.Exits} {
			for _, r := range rs {
				n[r.G]++
			}
		}
	}
	life := map[int64]bool{}
	for g, k := range n {
		if k == 4 {
			life[g] = true
		}
	}
	return life
}

// createdIn returns the creates of file a that file b should have in goid
// mode: created in b too, or never seen in b although created inside the
// time window (goroutine ids are not a usable window on their own: each P
// takes ids in batches, runtime/proc.go newproc1 and goidcache).
func (c *cmp) createdIn(a, b *Trace) []Rec {
	made := map[int64]bool{}
	for _, r := range b.Creates {
		made[r.G] = true
	}
	var out []Rec
	for _, r := range a.Creates {
		if made[r.G] || (!b.Seen[r.G] && r.T >= c.w.StartNS && r.T <= c.w.EndNS) {
			out = append(out, r)
		}
	}
	return out
}

type stackPair struct {
	class string
	a, b  Rec
}

// in reports whether a record is inside the compared window.
func (c *cmp) in(r Rec) bool {
	if c.life != nil && r.G >= 0 {
		return c.life[r.G]
	}
	return r.T >= c.w.StartNS && r.T <= c.w.EndNS
}

// filter returns the records inside the window. Records are in reader
// order, which is time order, so the time window is a sub-slice (no copy).
func (c *cmp) filter(rs []Rec) []Rec {
	if c.life == nil {
		i := sort.Search(len(rs), func(i int) bool { return rs[i].T >= c.w.StartNS })
		j := sort.Search(len(rs), func(i int) bool { return rs[i].T > c.w.EndNS })
		return rs[i:max(i, j)]
	}
	var out []Rec
	for _, r := range rs {
		if c.in(r) {
			out = append(out, r)
		}
	}
	return out
}

func (c *cmp) addRow(r Row) {
	if r.Checked {
		if r.Kind == "diff" {
			r.Pass = r.Figure <= r.Limit+1e-12
		} else {
			r.Pass = r.Figure >= r.Limit-1e-12
		}
	}
	c.rep.Rows = append(c.rep.Rows, r)
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// goroutines: every goroutine created inside the window must be created in
// both files with the same id, by the same goroutine, at the same function.
func (c *cmp) goroutines() {
	refAll, oursAll := map[int64]Rec{}, map[int64]Rec{}
	for _, r := range c.ref.Creates {
		refAll[r.G] = r
	}
	for _, r := range c.ours.Creates {
		oursAll[r.G] = r
	}
	refW, oursW := c.filter(c.ref.Creates), c.filter(c.ours.Creates)
	if c.life != nil {
		refW, oursW = c.createdIn(c.ref, c.ours), c.createdIn(c.ours, c.ref)
	}
	row := Row{Class: "goroutines created", Kind: "match", Ref: len(refW), Ours: len(oursW),
		Limit: c.o.MinGoroutineMatch, Checked: true}
	wrongCreator, wrongFunc := 0, 0
	for _, a := range refW {
		b, ok := oursAll[a.G]
		if !ok {
			row.RefOnly++
			c.rep.example("goroutine %d created by %d at %s (t=%d) missing from ours", a.G, a.By, a.Key, a.T)
			continue
		}
		c.stackPairs = append(c.stackPairs, stackPair{"create", a, b},
			stackPair{"start", Rec{G: a.G, Stack: a.Start}, Rec{G: b.G, Stack: b.Start}})
		switch {
		case a.By != b.By:
			wrongCreator++
			c.rep.example("goroutine %d: creator ref %d ours %d", a.G, a.By, b.By)
		case a.Key != b.Key:
			wrongFunc++
			c.rep.example("goroutine %d: start function ref %q ours %q", a.G, a.Key, b.Key)
		default:
			row.Matched++
		}
	}
	for _, b := range oursW {
		if _, ok := refAll[b.G]; !ok {
			row.OursOnly++
			c.rep.example("goroutine %d created by %d at %s (t=%d) only in ours", b.G, b.By, b.Key, b.T)
		}
	}
	row.Figure = ratio(row.Matched, row.Ref+row.OursOnly)
	if wrongCreator+wrongFunc > 0 {
		row.Note = fmt.Sprintf("%d wrong creator, %d wrong start function", wrongCreator, wrongFunc)
	}
	c.addRow(row)
}

// pairPerG pairs two time-ordered record lists goroutine by goroutine, each
// goroutine's records in order (pairSeq: the most pairs within TolNS, then
// the fewest with different keys, then the nearest in time): a wrong reason
// shows as a wrong reason, not as a missing event.
func (c *cmp) pairPerG(a, b []Rec, pair func(x, y Rec)) (paired, refOnly, oursOnly int) {
	ga, gb := map[int64][]Rec{}, map[int64][]Rec{}
	for _, r := range a {
		ga[r.G] = append(ga[r.G], r)
	}
	for _, r := range b {
		gb[r.G] = append(gb[r.G], r)
	}
	gs := make([]int64, 0, len(ga))
	for g := range ga {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	for _, g := range gs {
		p, ro, oo := pairSeqBounded(ga[g], gb[g], c.o.TolNS, c.pushed, pair)
		paired, refOnly, oursOnly = paired+p, refOnly+ro, oursOnly+oo
	}
	for g, ys := range gb {
		if _, ok := ga[g]; !ok {
			oursOnly += len(ys)
		}
	}
	return
}

func pairsOf(m map[string]int, n map[string]int) map[string]Pair {
	out := map[string]Pair{}
	for k, v := range m {
		p := out[k]
		p.Ref = v
		out[k] = p
	}
	for k, v := range n {
		p := out[k]
		p.Ours = v
		out[k] = p
	}
	return out
}

func byKey(r Rec) string { return r.Key }
func byG(r Rec) string   { return strconv.FormatInt(r.G, 10) }

// blocks: Running->Waiting counts per reason, then per-goroutine pairing
// whose reasons must agree.
func (c *cmp) blocks() {
	a, b, pairs := c.windowed(c.ref.Blocks, c.ours.Blocks)
	ca, cb := countBy(a, byKey), countBy(b, byKey)
	c.rep.BlockReasons = pairsOf(ca, cb)
	diff, _, _ := l1Diff(ca, cb)
	same, differ := 0, 0
	paired, ro, oo := len(pairs), len(a)-len(pairs), len(b)-len(pairs)
	for _, p := range pairs {
		x, y := p[0], p[1]
		if x.Key == y.Key {
			same++
		} else {
			differ++
			if differ <= 5 {
				c.rep.example("block of goroutine %d at t=%d: reason ref %q ours %q", x.G, x.T, x.Key, y.Key)
			}
		}
		c.stackPairs = append(c.stackPairs, stackPair{"block", x, y})
	}
	c.addRow(Row{Class: "blocks (per reason)", Kind: "diff", Ref: len(a), Ours: len(b), Matched: paired,
		RefOnly: ro, OursOnly: oo, Figure: diff, Limit: c.o.MaxCountDiff, Checked: true})
	// Share of all blocks (either side) that pair in time with a block of
	// the same goroutine and the same reason.
	c.addRow(Row{Class: "blocks paired, same reason", Kind: "match", Ref: len(a), Ours: len(b), Matched: same,
		RefOnly: ro, OursOnly: oo, Figure: ratio(same, len(a)+oo), Limit: 1 - c.o.MaxCountDiff, Checked: true,
		Note: fmt.Sprintf("%d paired, %d with another reason", paired, differ)})
}

func (c *cmp) unblocks() {
	a, b, pairs := c.windowed(c.ref.Unblocks, c.ours.Unblocks)
	diff, _, _ := l1Diff(map[string]int{"": len(a)}, map[string]int{"": len(b)})
	paired, ro, oo := len(pairs), len(a)-len(pairs), len(b)-len(pairs)
	c.addRow(Row{Class: "unblocks", Kind: "diff", Ref: len(a), Ours: len(b), Matched: paired,
		RefOnly: ro, OursOnly: oo, Figure: diff, Limit: c.o.MaxCountDiff, Checked: true})
}

func (c *cmp) syscalls() {
	a, b, pairs := c.windowed(c.ref.Syscalls, c.ours.Syscalls)
	diff, _, _ := l1Diff(countBy(a, byG), countBy(b, byG))
	paired, ro, oo := len(pairs), len(a)-len(pairs), len(b)-len(pairs)
	for _, p := range pairs {
		c.stackPairs = append(c.stackPairs, stackPair{"syscall", p[0], p[1]})
	}
	c.addRow(Row{Class: "syscalls (per goroutine)", Kind: "diff", Ref: len(a), Ours: len(b), Matched: paired,
		RefOnly: ro, OursOnly: oo, Figure: diff, Limit: c.o.MaxCountDiff, Checked: true})
}

// stacks: over paired creates (creator and start stacks), blocks and
// syscalls, the share whose frames (func, file:line) are identical. Pairs
// where neither side has a stack are not counted.
func (c *cmp) stacks() {
	n, same, funcs := 0, 0, 0
	per := map[string][2]int{}
	for _, p := range c.stackPairs {
		if p.a.Stack.Key == "" && p.b.Stack.Key == "" {
			continue
		}
		n++
		s := per[p.class]
		s[0]++
		switch {
		case p.a.Stack.Key == p.b.Stack.Key:
			same++
			funcs++
			s[1]++
		case p.a.Stack.Funcs == p.b.Stack.Funcs:
			funcs++
		}
		if p.a.Stack.Key != p.b.Stack.Key && n-same <= 5 {
			c.rep.example("%s stack of goroutine %d differs:\n  ref:\n%s  ours:\n%s", p.class, p.a.G, indent(p.a.Stack.Key), indent(p.b.Stack.Key))
		}
		per[p.class] = s
	}
	var notes []string
	for _, k := range sortedKeys(per) {
		notes = append(notes, fmt.Sprintf("%s %d/%d", k, per[k][1], per[k][0]))
	}
	notes = append(notes, fmt.Sprintf("same functions %d/%d", funcs, n))
	c.addRow(Row{Class: "stacks (paired events)", Kind: "match", Ref: n, Ours: n, Matched: same, Figure: ratio(same, n),
		Limit: c.o.MinStackMatch, Checked: true, Note: strings.Join(notes, ", ")})
}

func indent(s string) string {
	if s == "" {
		return "    (none)\n"
	}
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

func (c *cmp) stops() {
	a, b := c.filter(c.ref.Stops), c.filter(c.ours.Stops)
	ca, cb := countBy(a, byKey), countBy(b, byKey)
	c.rep.StopReasons = pairsOf(ca, cb)
	diff, _, _ := l1Diff(ca, cb)
	paired, ro, oo := c.pairPerG(a, b, nil)
	c.addRow(Row{Class: "stops (per reason)", Kind: "diff", Ref: len(a), Ours: len(b), Matched: paired,
		RefOnly: ro, OursOnly: oo, Figure: diff, Limit: c.o.MaxCountDiff})
}

func (c *cmp) exits() {
	c.setRow("goroutines exited", c.filter(c.ref.Exits), c.filter(c.ours.Exits), func(r Rec) string { return byG(r) })
}

// setRow matches two multisets of records by key.
func (c *cmp) setRow(class string, a, b []Rec, key func(Rec) string) {
	ca, cb := countBy(a, key), countBy(b, key)
	row := Row{Class: class, Kind: "match", Ref: len(a), Ours: len(b)}
	for k, n := range ca {
		m := min(n, cb[k])
		row.Matched += m
		row.RefOnly += n - m
	}
	for k, n := range cb {
		row.OursOnly += max(0, n-ca[k])
	}
	row.Figure = ratio(row.Matched, row.Ref+row.OursOnly)
	c.addRow(row)
}

// ranges: GC cycles and stop-the-world ranges by reason (counts), other
// ranges (sweep, mark assist) reported together.
func (c *cmp) ranges() {
	a, b := c.filter(c.ref.Ranges), c.filter(c.ours.Ranges)
	ca, cb := countBy(a, byKey), countBy(b, byKey)
	c.rep.Ranges = pairsOf(ca, cb)
	pick := func(m map[string]int, f func(string) bool) map[string]int {
		out := map[string]int{}
		for k, n := range m {
			if f(k) {
				out[k] = n
			}
		}
		return out
	}
	isGC := func(k string) bool { return k == "GC concurrent mark phase" }
	isSTW := func(k string) bool { return strings.HasPrefix(k, "stop-the-world") }
	other := func(k string) bool { return !isGC(k) && !isSTW(k) }
	for _, g := range []struct {
		class string
		f     func(string) bool
	}{{"GC cycles", isGC}, {"stop-the-world (per reason)", isSTW}, {"other ranges (sweep, assist)", other}} {
		ra, rb := pick(ca, g.f), pick(cb, g.f)
		diff, na, nb := l1Diff(ra, rb)
		c.addRow(Row{Class: g.class, Kind: "diff", Ref: na, Ours: nb, Figure: diff, Limit: c.o.MaxCountDiff})
	}
}

// annotations: user tasks, regions and logs, matched by their strings and
// (regions, logs) goroutine.
func (c *cmp) annotations() {
	withG := func(r Rec) string { return strconv.FormatInt(r.G, 10) + "|" + r.Key }
	c.setRow("user tasks", c.filter(c.ref.Tasks), c.filter(c.ours.Tasks), byKey)
	c.setRow("user regions", c.filter(c.ref.Regions), c.filter(c.ours.Regions), withG)
	c.setRow("user logs", c.filter(c.ref.Logs), c.filter(c.ours.Logs), withG)
}

// metrics: counts by name, and how many REF samples OURS has with the same
// value within TolNS (heap values at matched points).
func (c *cmp) metrics() {
	a, b := c.filter(c.ref.Metrics), c.filter(c.ours.Metrics)
	ca, cb := countBy(a, byKey), countBy(b, byKey)
	c.rep.Metrics = pairsOf(ca, cb)
	diff, _, _ := l1Diff(ca, cb)
	c.addRow(Row{Class: "metrics (per name)", Kind: "diff", Ref: len(a), Ours: len(b), Figure: diff, Limit: c.o.MaxCountDiff})
	byName := map[string][]Rec{}
	for _, r := range b {
		byName[r.Key] = append(byName[r.Key], r)
	}
	same := 0
	for _, r := range a {
		xs := byName[r.Key] // time-ordered
		for i := sort.Search(len(xs), func(i int) bool { return xs[i].T >= r.T-c.o.TolNS }); i < len(xs) && xs[i].T <= r.T+c.o.TolNS; i++ {
			if xs[i].Val == r.Val {
				same++
				break
			}
		}
	}
	c.addRow(Row{Class: "metric values (same value near in time)", Kind: "match", Ref: len(a), Ours: len(b),
		Matched: same, RefOnly: len(a) - same, Figure: ratio(same, len(a)), Limit: 1})
}
