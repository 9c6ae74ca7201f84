package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

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

// quiet runs the command with stdout and stderr discarded.
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
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := append([]byte(nil), data...)
	for i := len(corrupt) / 3; i < len(corrupt)/3+64; i++ {
		corrupt[i] = 0xff
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"good", []string{files.Ref}, 0},
		{"good, flags after file", []string{files.Ref, "--json"}, 0},
		{"dump", []string{"--dump", files.Ref}, 0},
		{"events-json", []string{files.FR, "--events-json"}, 0},
		{"flight recorder snapshot", []string{files.FR}, 0},
		{"truncated", []string{write("trunc", data[:len(data)/2])}, 1},
		{"corrupted", []string{write("corrupt", corrupt)}, 1},
		{"not a trace", []string{write("text", []byte("hello, this is not a Go trace file"))}, 1},
		{"empty", []string{write("empty", nil)}, 1},
		{"missing file", []string{filepath.Join(dir, "nope")}, 2},
		{"no file", nil, 2},
		{"two files", []string{files.Ref, files.FR}, 2},
	} {
		if got := quiet(t, tc.args...); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
