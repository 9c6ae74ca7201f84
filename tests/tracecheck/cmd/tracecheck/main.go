// Command tracecheck parses a Go execution trace with golang.org/x/exp/trace
// and prints a JSON summary of what it contains (keys documented in README.md).
//
//	tracecheck FILE [--json] [--dump] [--events-json] [--no-validate]
//
// Exit status: 0 accepted; 1 the parser rejected the file or a semantic
// check failed (message on stderr); 2 usage or I/O error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"golang.org/x/exp/trace"

	"gotraced/tests/tracecheck/internal/summary"
	"gotraced/tests/tracecheck/internal/traceio"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("tracecheck", flag.ContinueOnError)
	_ = fs.Bool("json", true, "print the JSON summary (the default; kept for symmetry with tracecompare)")
	dump := fs.Bool("dump", false, "print every event's String() one per line (stdout) instead of the summary")
	evJSON := fs.Bool("events-json", false, "print one JSON object per event (JSON lines) instead of the summary")
	noValidate := fs.Bool("no-validate", false, "skip the semantic checks; only the parser decides")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tracecheck FILE [--json] [--dump] [--events-json] [--no-validate]")
		fs.PrintDefaults()
	}
	path, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintln(os.Stderr, "tracecheck:", err)
		return 2
	}

	sum := summary.New()
	var val *summary.Validator
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	version, err := traceio.Walk(path, func(ev trace.Event) error {
		if val == nil && !*noValidate {
			// The version is only known once the header was read; the
			// first event arrives after that.
			val = summary.NewValidator(sum.Version)
		}
		sum.Add(ev)
		if val != nil {
			val.Event(ev)
		}
		switch {
		case *dump:
			fmt.Println(ev.String())
		case *evJSON:
			return out.Encode(eventJSON(ev))
		}
		return nil
	}, func(v string) { sum.Version = v })
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracecheck: %s: %v\n", path, err)
		return 1
	}
	if version == "" {
		fmt.Fprintf(os.Stderr, "tracecheck: %s: unreadable header\n", path)
		return 1
	}
	sum.Finish()
	if val != nil {
		sum.Validation = val.Result()
	}
	if !*dump && !*evJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(sum); err != nil {
			fmt.Fprintln(os.Stderr, "tracecheck:", err)
			return 2
		}
	}
	if sum.Validation.Errors > 0 {
		fmt.Fprintf(os.Stderr, "tracecheck: %s: %d semantic check errors, first:\n", path, sum.Validation.Errors)
		for _, e := range sum.Validation.First {
			fmt.Fprintln(os.Stderr, "  ", e)
		}
		return 1
	}
	return 0
}

// parseInterspersed accepts flags before or after the single FILE argument.
func parseInterspersed(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", fmt.Errorf("want exactly one FILE")
	}
	return pos[0], nil
}
