package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gotraced/tests/tracecheck/internal/compare"
	"gotraced/tests/tracecheck/internal/testgen"
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

func quiet(t *testing.T, args ...string) int {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	so, se := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = null, null
	defer func() { os.Stdout, os.Stderr = so, se }()
	return run(args)
}

func TestExitCodes(t *testing.T) {
	data, err := os.ReadFile(files.Ref)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(t.TempDir(), "trunc")
	if err := os.WriteFile(trunc, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"self", []string{files.Ref, files.Ref}, 0},
		{"self json", []string{"--json", files.Ref, files.Ref}, 0},
		{"flight recorder window", []string{files.Ref, files.FR, "--json", "--clip-at-sync"}, 0},
		{"goid window", []string{files.Ref, files.FR, "--window=goid", "--clip-at-sync"}, 0},
		// A goroutine-match threshold above 100% cannot be met...
		{"impossible threshold", []string{files.Ref, files.Ref, "--min-goroutine-match=1.01"}, 1},
		{"impossible threshold list", []string{files.Ref, files.Ref, "--thresholds=min-stack-match=1.5"}, 1},
		// ...unless only printing.
		{"no-assert", []string{files.Ref, files.Ref, "--min-goroutine-match=1.01", "--no-assert"}, 0},
		{"bad threshold", []string{files.Ref, files.Ref, "--thresholds=bogus=1"}, 2},
		{"bad window", []string{files.Ref, files.Ref, "--window=sideways"}, 2},
		{"unparsable", []string{files.Ref, trunc}, 2},
		{"one file", []string{files.Ref}, 2},
	} {
		if got := quiet(t, tc.args...); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestParseThresholds(t *testing.T) {
	o := compare.DefaultOptions()
	if err := parseThresholds("min-goroutine-match=0.9, max-count-diff=0.1,min-stack-match=0.5", &o); err != nil {
		t.Fatal(err)
	}
	if o.MinGoroutineMatch != 0.9 || o.MaxCountDiff != 0.1 || o.MinStackMatch != 0.5 {
		t.Errorf("%+v", o)
	}
}
