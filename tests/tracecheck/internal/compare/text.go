package compare

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the fidelity table and the details a reader needs to see
// why a row fell short.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "ref : %s (%s, %d events, %.3f s)\n", r.Ref.Path, r.Ref.Version, r.Ref.Events, secs(r.Ref.LastNS-r.Ref.FirstNS))
	fmt.Fprintf(w, "ours: %s (%s, %d events, %.3f s)\n", r.Ours.Path, r.Ours.Version, r.Ours.Events, secs(r.Ours.LastNS-r.Ours.FirstNS))
	win := r.Window
	if win.Mode == "goid" {
		fmt.Fprintf(w, "window: goroutines created and exited in both files; other classes [%d, %d] ns", win.StartNS, win.EndNS)
	} else {
		fmt.Fprintf(w, "window: [%d, %d] ns on ref's clock, %.3f s", win.StartNS, win.EndNS, secs(win.EndNS-win.StartNS))
		if win.Clipped {
			fmt.Fprintf(w, " (clipped at a generation start)")
		}
	}
	fmt.Fprintf(w, "; ours shifted by %d ns (clock snapshots %d, creation skew %d over %d goroutines)\n\n",
		win.AppliedNS, win.ClockShiftNS, win.SkewNS, win.SkewSamples)

	const rowf = "%-40s %8s %8s %8s %8s %9s %12s %11s  %s\n"
	fmt.Fprintf(w, rowf, "class", "ref", "ours", "matched", "ref-only", "ours-only", "figure", "limit", "result")
	for _, row := range r.Rows {
		fig, lim := fmt.Sprintf("%.2f%%", 100*row.Figure), "-"
		if row.Kind == "diff" {
			fig = "diff " + fig
		}
		res := "info"
		if row.Checked {
			res = map[bool]string{true: "ok", false: "FAIL"}[row.Pass]
			lim = fmt.Sprintf(map[bool]string{true: "<= %.2f%%", false: ">= %.2f%%"}[row.Kind == "diff"], 100*row.Limit)
		}
		d := func(n int) string { return fmt.Sprint(n) }
		fmt.Fprintf(w, rowf, row.Class, d(row.Ref), d(row.Ours), d(row.Matched), d(row.RefOnly), d(row.OursOnly), fig, lim, res)
	}
	for _, row := range r.Rows {
		if row.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", row.Class, row.Note)
		}
	}
	writePairs(w, "block reasons", r.BlockReasons)
	writePairs(w, "stop reasons", r.StopReasons)
	writePairs(w, "ranges", r.Ranges)
	writePairs(w, "metrics", r.Metrics)
	if len(r.Examples) > 0 {
		fmt.Fprintf(w, "\nexamples of differences (first %d):\n", len(r.Examples))
		for _, e := range r.Examples {
			fmt.Fprintln(w, "  "+strings.ReplaceAll(e, "\n", "\n  "))
		}
	}
	fmt.Fprintln(w)
	if r.Pass {
		fmt.Fprintln(w, "PASS: every checked class within its threshold")
	} else {
		for _, f := range r.Failures {
			fmt.Fprintln(w, "FAIL:", f)
		}
	}
}

func writePairs(w io.Writer, title string, m map[string]Pair) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (ref / ours):\n", title)
	for _, k := range sortedKeys(m) {
		p := m[k]
		mark := ""
		if p.Ref != p.Ours {
			mark = "  *"
		}
		name := k
		if name == "" {
			name = `""`
		}
		fmt.Fprintf(w, "  %-45s %8d / %-8d%s\n", name, p.Ref, p.Ours, mark)
	}
}

func secs(ns int64) float64 { return float64(ns) / 1e9 }
