package summary

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/testgen"
	"gotraced/tests/tracecheck/internal/traceio"
)

var files testgen.Files

func TestMain(m *testing.M) {
	var err error
	if files, err = testgen.Generate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	testgen.Cleanup()
	os.Exit(code)
}

func summarize(t *testing.T, path string) *Summary {
	t.Helper()
	s := New()
	var v *Validator
	version, err := traceio.Walk(path, func(ev trace.Event) error {
		s.Add(ev)
		v.Event(ev)
		return nil
	}, func(ver string) { s.Version = ver; v = NewValidator(ver) })
	if err != nil {
		t.Fatal(err)
	}
	if version != s.Version {
		t.Fatalf("version %q vs %q", version, s.Version)
	}
	s.Finish()
	s.Validation = v.Result()
	return s
}

func TestRuntimeTraceSummary(t *testing.T) {
	s := summarize(t, files.Ref)
	if s.Validation.Errors != 0 {
		t.Errorf("a runtime-written trace fails the semantic checks: %q", s.Validation.First)
	}
	if !strings.HasPrefix(s.Version, "go1.") {
		t.Errorf("version %q", s.Version)
	}
	// tracegen: one task, one "round" log per round; 8 regions per round
	// (9 with the 1.23+ coroutine region).
	if s.Tasks != files.Rounds || s.TaskEnds != files.Rounds {
		t.Errorf("tasks %d/%d, want %d", s.Tasks, s.TaskEnds, files.Rounds)
	}
	if s.Regions != s.RegionEnds || s.Regions < 8*files.Rounds {
		t.Errorf("regions %d/%d", s.Regions, s.RegionEnds)
	}
	for _, reason := range []string{"chan receive", "chan send", "select", "sleep", "network", "sync"} {
		if s.BlockReasons[reason] == 0 {
			t.Errorf("no %q blocks: %v", reason, s.BlockReasons)
		}
	}
	sumBlocks := 0
	for _, n := range s.BlockReasons {
		sumBlocks += n
	}
	if g := s.Transitions["goroutine"]; sumBlocks != g["Running->Waiting"] || s.Syscalls != g["Running->Syscall"] {
		t.Errorf("block/syscall counts disagree with transitions: %d %d %v", sumBlocks, s.Syscalls, g)
	}
	if s.Ranges["GC concurrent mark phase"] < 2*files.Rounds {
		t.Errorf("GC ranges %v", s.Ranges)
	}
	if s.Generations < 2 || s.ClockSnaps != s.Generations || s.Syncs != s.Generations+1 {
		t.Errorf("syncs %d generations %d snapshots %d", s.Syncs, s.Generations, s.ClockSnaps)
	}
	if s.Creates == 0 || s.Goroutines <= s.Creates/2 || s.Procs == 0 || s.Threads == 0 {
		t.Errorf("creates %d goroutines %d procs %d threads %d", s.Creates, s.Goroutines, s.Procs, s.Threads)
	}
	if s.Stacks == 0 || s.Distinct == 0 || s.Frames < s.Stacks || s.DurationNS <= 0 {
		t.Errorf("stacks %d distinct %d frames %d duration %d", s.Stacks, s.Distinct, s.Frames, s.DurationNS)
	}
}

// Every key README.md documents is in the JSON, and every JSON key is
// documented: the encoder's property tests rely on the names.
func TestReadmeDocumentsEveryKey(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]bool{}
	cell := regexp.MustCompile("^\\| (`[^|]+) \\|")
	name := regexp.MustCompile("`([a-z_]+)(\\.[a-z]+)?`")
	text := string(readme)
	from, to := strings.Index(text, "### JSON summary"), strings.Index(text, "## tracecompare")
	if from < 0 || to < from {
		t.Fatal("README.md lacks the JSON summary section")
	}
	for _, line := range strings.Split(text[from:to], "\n") {
		if m := cell.FindStringSubmatch(line); m != nil {
			for _, k := range name.FindAllStringSubmatch(m[1], -1) {
				doc[k[1]] = true
			}
		}
	}
	b, err := json.Marshal(summarize(t, files.Ref))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k := range got {
		if !doc[k] {
			t.Errorf("JSON key %q is not documented in README.md", k)
		}
	}
	for k := range doc {
		if _, ok := got[k]; !ok {
			t.Errorf("README.md documents %q but the JSON lacks it", k)
		}
	}
}

func ev[T trace.EventDetails](t *testing.T, at trace.Time, kind trace.EventKind, m trace.ThreadID, g trace.GoID, d T) trace.Event {
	t.Helper()
	e, err := trace.MakeEvent(trace.EventConfig[T]{Time: at, Kind: kind, Thread: m, Goroutine: g, Proc: trace.NoProc, Details: d})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Go <= 1.21 traces: goroutines in a syscall when the trace began come out of
// x/exp/trace on thread -1, several of them at once, and leave the syscall there.
func TestValidatorAcceptsSyscallsWithoutThread(t *testing.T) {
	st := trace.EventStateTransition
	v := NewValidator("go1.19")
	for _, e := range []trace.Event{
		ev(t, 10, st, trace.NoThread, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoUndetermined, trace.GoSyscall)),
		ev(t, 11, st, trace.NoThread, trace.NoGoroutine, trace.MakeGoStateTransition(13, trace.GoUndetermined, trace.GoSyscall)),
		ev(t, 20, st, trace.NoThread, trace.NoGoroutine, trace.MakeGoStateTransition(13, trace.GoSyscall, trace.GoRunnable)),
		ev(t, 30, st, 2, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoSyscall, trace.GoRunning)),
		ev(t, 40, st, 2, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoRunning, trace.GoRunnable)),
	} {
		v.Event(e)
	}
	if r := v.Result(); r.Errors != 0 {
		t.Errorf("want no error, got %d: %q", r.Errors, r.First)
	}
}

func TestValidatorCatches(t *testing.T) {
	st := trace.EventStateTransition
	for _, tc := range []struct {
		name string
		evs  func() []trace.Event
		want string
	}{
		{"wrong from state", func() []trace.Event {
			return []trace.Event{
				ev(t, 10, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoNotExist, trace.GoRunnable)),
				ev(t, 20, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoWaiting, trace.GoRunnable)),
			}
		}, "leaves Waiting but was Runnable"},
		{"two goroutines on one thread", func() []trace.Event {
			return []trace.Event{
				ev(t, 10, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoNotExist, trace.GoRunnable)),
				ev(t, 11, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(6, trace.GoNotExist, trace.GoRunnable)),
				ev(t, 20, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoRunnable, trace.GoRunning)),
				ev(t, 30, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(6, trace.GoRunnable, trace.GoRunning)),
			}
		}, "which runs goroutine 5"},
		{"time going back", func() []trace.Event {
			return []trace.Event{
				ev(t, 10, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(5, trace.GoNotExist, trace.GoRunnable)),
				ev(t, 10, st, 1, trace.NoGoroutine, trace.MakeGoStateTransition(6, trace.GoNotExist, trace.GoRunnable)),
			}
		}, "not after previous"},
		{"range end without begin", func() []trace.Event {
			return []trace.Event{ev(t, 10, trace.EventRangeEnd, 1, 5, trace.Range{Name: "GC mark assist", Scope: trace.MakeResourceID(trace.GoID(5))})}
		}, "ends while not open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := NewValidator("go1.26")
			for _, e := range tc.evs() {
				v.Event(e)
			}
			r := v.Result()
			if r.Errors == 0 || !strings.Contains(strings.Join(r.First, "\n"), tc.want) {
				t.Errorf("want an error containing %q, got %q", tc.want, r.First)
			}
		})
	}
}
