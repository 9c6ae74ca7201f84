package compare

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/exp/trace"
)

// CPU samples (gotraced --cpu-hz, docs/probe-plan.md §9). REF's samples come
// from the runtime's SIGPROF profiler (runtime/proc.go sigprof ->
// runtime/tracecpu.go traceCPUSample, with pprof.StartCPUProfile running),
// OURS from perf CPU-clock events: two independent samplings of the same
// execution, so samples cannot be paired one by one. What must agree is where
// the CPU time went:
//   - "cpu samples (leaf function shares)": 1 - the total variation distance
//     between the two distributions of the samples' leaf function (1.0 = the
//     same shares). Checked (>= cpuShareLimit) when both files have at least
//     cpuMinSamples samples in the window; otherwise reported only (REF has
//     none unless the program profiles itself).
//   - "cpu samples (count)": relative count difference, reported only (the
//     runtime's timers and perf's clock do not lose samples the same way).
const (
	cpuShareLimit = 0.8
	cpuMinSamples = 20
)

// leafFunc is the function of a sample's innermost frame ("" when none),
// not counting the call the runtime injects for an asynchronous preemption
// (runtime/preempt.go asyncPreempt -> asyncPreempt2, pushed by the SIGURG
// handler; runtime/traceback.go isInjectedCall): the time is charged to the
// interrupted function. The runtime's own profiler often lands there (a
// SIGPROF pending while the preemption signal is handled is delivered at
// the injected call's first instruction: on a loaded 2-CPU machine a third
// of a spinning goroutine's in-process samples had runtime.asyncPreempt as
// leaf, against under 1% of the perf-clock samples of the same run).
func leafFunc(s trace.Stack) string {
	if s == trace.NoStack {
		return ""
	}
	for f := range s.Frames() {
		if f.Func == "runtime.asyncPreempt" || f.Func == "runtime.asyncPreempt2" {
			continue
		}
		return f.Func
	}
	return ""
}

// shareMatch is 1 - the total variation distance of the Key distributions.
func shareMatch(a, b []Rec) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	na, nb := map[string]int{}, map[string]int{}
	for _, r := range a {
		na[r.Key]++
	}
	for _, r := range b {
		nb[r.Key]++
	}
	tvd := 0.0
	for k, n := range na {
		tvd += math.Abs(float64(n)/float64(len(a)) - float64(nb[k])/float64(len(b)))
	}
	for k, n := range nb {
		if na[k] == 0 {
			tvd += float64(n) / float64(len(b))
		}
	}
	return 1 - tvd/2
}

// topKeys lists the most frequent keys with their shares, for the note.
func topKeys(rs []Rec, n int) string {
	cnt := map[string]int{}
	for _, r := range rs {
		cnt[r.Key]++
	}
	keys := make([]string, 0, len(cnt))
	for k := range cnt {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return cnt[keys[i]] > cnt[keys[j]] || cnt[keys[i]] == cnt[keys[j]] && keys[i] < keys[j]
	})
	out := ""
	for i, k := range keys {
		if i == n {
			break
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %.2f", k, float64(cnt[k])/float64(len(rs)))
	}
	return out
}

func (c *cmp) cpu() {
	a, b := c.filter(c.ref.Samples), c.filter(c.ours.Samples)
	if len(a) == 0 && len(b) == 0 {
		return // neither file has CPU samples: no rows
	}
	share := Row{Class: "cpu samples (leaf function shares)", Kind: "match", Ref: len(a), Ours: len(b),
		Figure: shareMatch(a, b), Limit: cpuShareLimit}
	if len(a) >= cpuMinSamples && len(b) >= cpuMinSamples {
		share.Checked = true
		share.Note = "ref: " + topKeys(a, 3) + "; ours: " + topKeys(b, 3)
	} else {
		share.Note = fmt.Sprintf("fewer than %d samples on a side: not checked", cpuMinSamples)
	}
	c.addRow(share)
	diff := 0.0
	if len(a) > 0 {
		diff = math.Abs(float64(len(b)-len(a))) / float64(len(a))
	}
	c.addRow(Row{Class: "cpu samples (count)", Kind: "diff", Ref: len(a), Ours: len(b), Figure: diff,
		Note: "reported only: two independent samplings"})
}
