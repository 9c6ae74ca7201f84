// Package testgen produces real trace files for the tests by running the
// testdata/tracegen program with the Go toolchain on PATH (no committed
// binaries or traces).
package testgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Files are two traces of one run: Ref from runtime/trace.Start for the whole
// run, FR a flight-recorder snapshot of a later, shorter window.
type Files struct {
	Dir, Ref, FR string
	Rounds       int
}

var (
	once   sync.Once
	files  Files
	genErr error
)

// Generate runs tracegen once per test binary and returns its traces. The
// directory is removed by the caller's TestMain via Cleanup.
func Generate() (Files, error) {
	once.Do(func() {
		files, genErr = generate()
	})
	return files, genErr
}

// Cleanup removes the generated files.
func Cleanup() {
	if files.Dir != "" {
		os.RemoveAll(files.Dir)
	}
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func generate() (Files, error) {
	dir, err := os.MkdirTemp("", "tracecheck-test")
	if err != nil {
		return Files{}, err
	}
	f := Files{Dir: dir, Ref: filepath.Join(dir, "ref.trace"), FR: filepath.Join(dir, "fr.trace"), Rounds: 8}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	cmd := exec.Command(gobin, "run", ".", "-o", f.Ref, "-fr", f.FR, "-fr-age", "50ms", "-rounds", fmt.Sprint(f.Rounds))
	cmd.Dir = filepath.Join(moduleRoot(), "testdata", "tracegen")
	// Short generations (5 ms) so the flight recorder keeps only part of
	// the run; GOTOOLCHAIN=local so the test never fetches a toolchain.
	cmd.Env = append(os.Environ(), "GODEBUG=traceadvanceperiod=5000000", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return Files{}, fmt.Errorf("tracegen: %v\n%s", err, out)
	}
	return f, nil
}
