// A test that leaks 1500 goroutines blocked on a channel (and fails when
// GOTRACED_REPORT_FAIL=1), for tests/suites/56-report.sh: `go test -exec 'gotraced
// --out-dir D --report-fail-on goroutine_growth>1000 --'` must fail it, and the test's
// own failure must win over the threshold's exit status.
package gotest

import (
	"os"
	"testing"
	"time"
)

var never = make(chan int)

func TestLeak(t *testing.T) {
	for i := 0; i < 1500; i++ {
		go func() { <-never }()
	}
	time.Sleep(100 * time.Millisecond)
	if os.Getenv("GOTRACED_REPORT_FAIL") == "1" {
		t.Fatal("failing on purpose")
	}
}
