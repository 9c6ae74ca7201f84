// A package whose test fails on purpose: the go test bench runs it under
// `go test -exec gotraced ...` to show the test binary's exit status reaches go test
// (FAIL, exit 1) as it does without gotraced.
package failing

import "testing"

func TestPasses(t *testing.T) {}

func TestFailsOnPurpose(t *testing.T) {
	t.Fatal("this test fails on purpose (bench/gotest: exit codes pass through gotraced)")
}
