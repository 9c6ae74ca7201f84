// Command tracecompare compares two traces of the same run: REF written by
// the program's own runtime/trace.Start, OURS written by gotraced. It prints
// a fidelity table, event class by event class, and fails (exit 1) when a
// checked class misses its threshold.
//
//	tracecompare REF.trace OURS.trace [--json] [--no-assert]
//	    [--min-goroutine-match=1.0] [--max-count-diff=0.02] [--min-stack-match=0.95]
//	    [--thresholds=k=v,...] [--window=time|goid] [--align=auto|clock|none]
//	    [--edge=1ms] [--tol=1ms] [--clip-at-sync]
//
// Exit status: 0 all checked classes within thresholds (or --no-assert);
// 1 a threshold failed; 2 usage error or a file the parser rejects.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"gotraced/tests/tracecheck/internal/compare"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	o := compare.DefaultOptions()
	fs := flag.NewFlagSet("tracecompare", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON instead of the text table")
	noAssert := fs.Bool("no-assert", false, "only print; exit 0 whatever the figures")
	fs.Float64Var(&o.MinGoroutineMatch, "min-goroutine-match", o.MinGoroutineMatch, "share of goroutines created in the window with the same id, creator and start function")
	fs.Float64Var(&o.MaxCountDiff, "max-count-diff", o.MaxCountDiff, "largest relative difference of block, unblock and syscall counts")
	fs.Float64Var(&o.MinStackMatch, "min-stack-match", o.MinStackMatch, "share of paired events with identical stack frames")
	thresholds := fs.String("thresholds", "", "the same thresholds as one list: min-goroutine-match=1,max-count-diff=0.02,min-stack-match=0.95")
	fs.StringVar(&o.Window, "window", o.Window, "time: compare the span both files cover; goid: goroutines present in both, any time")
	fs.StringVar(&o.Align, "align", o.Align, "auto: clock snapshots then creation skew; clock: snapshots only; none")
	fs.BoolVar(&o.ClipAtSync, "clip-at-sync", false, "end the window at the longer file's first generation start after the shorter file's last one (for a file cut by a generation advance, e.g. a flight-recorder snapshot)")
	edge := fs.Duration("edge", time.Duration(o.EdgeNS), "trim each end of the common window by this much (at most 10%)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile here (for tuning on big traces)")
	tol := fs.Duration("tol", time.Duration(o.TolNS), "largest time difference for pairing two events")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tracecompare REF.trace OURS.trace [flags]")
		fs.PrintDefaults()
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 2 {
		fs.Usage()
		return 2
	}
	if err := parseThresholds(*thresholds, &o); err != nil {
		fmt.Fprintln(os.Stderr, "tracecompare:", err)
		return 2
	}
	o.EdgeNS, o.TolNS = int64(*edge), int64(*tol)
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tracecompare:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "tracecompare:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}

	ref, err := compare.Load(pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracecompare: %s: %v\n", pos[0], err)
		return 2
	}
	ours, err := compare.Load(pos[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracecompare: %s: %v\n", pos[1], err)
		return 2
	}
	rep, err := compare.Compare(ref, ours, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracecompare:", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(os.Stderr, "tracecompare:", err)
			return 2
		}
	} else {
		rep.WriteText(os.Stdout)
	}
	if !rep.Pass && !*noAssert {
		for _, f := range rep.Failures {
			fmt.Fprintln(os.Stderr, "tracecompare: FAIL:", f)
		}
		return 1
	}
	return 0
}

func parseThresholds(s string, o *compare.Options) error {
	if s == "" {
		return nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return fmt.Errorf("bad threshold %q (want name=number)", kv)
		}
		switch k {
		case "min-goroutine-match":
			o.MinGoroutineMatch = f
		case "max-count-diff":
			o.MaxCountDiff = f
		case "min-stack-match":
			o.MinStackMatch = f
		default:
			return fmt.Errorf("unknown threshold %q (min-goroutine-match, max-count-diff, min-stack-match)", k)
		}
	}
	return nil
}
