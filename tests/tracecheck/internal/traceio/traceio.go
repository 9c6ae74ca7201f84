// Package traceio opens a Go execution trace and streams its events through
// golang.org/x/exp/trace, the public copy of Go's own parser (internal/trace).
// A trace is correct when that parser accepts it (shared/docs/design.md).
package traceio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/exp/trace"
)

// headerLen is the fixed size of the trace header: "go 1.NN trace" padded
// with NUL bytes (Go src/internal/trace/version/version.go, ReadHeader).
const headerLen = 16

// Version returns "go1.NN" from a 16-byte trace header, or "" if the header
// is not of the form "go 1.NN trace\x00...".
func Version(hdr []byte) string {
	s := string(bytes.TrimRight(hdr, "\x00"))
	if !strings.HasPrefix(s, "go 1.") || !strings.HasSuffix(s, " trace") {
		return ""
	}
	return "go" + strings.TrimSuffix(strings.TrimPrefix(s, "go "), " trace")
}

// Walk parses the trace at path and calls fn for every event in reader order.
// onVersion (may be nil) receives the header's version before the first event.
// It returns the header's version string. A parse error (including one raised
// after some events were delivered) is returned as is, prefixed by nothing, so
// that callers print exactly what the parser said.
func Walk(path string, fn func(ev trace.Event) error, onVersion func(string)) (version string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return WalkReader(f, fn, onVersion)
}

// WalkReader is Walk on an io.Reader.
func WalkReader(r io.Reader, fn func(ev trace.Event) error, onVersion func(string)) (version string, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	hdr, _ := br.Peek(headerLen)
	version = Version(hdr)
	if onVersion != nil {
		onVersion(version)
	}
	tr, err := trace.NewReader(br)
	if err != nil {
		return version, err
	}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return version, nil
		}
		if err != nil {
			return version, err
		}
		if err := fn(ev); err != nil {
			return version, err
		}
	}
}

// StackFrames returns a stack's frames, leaf first.
func StackFrames(s trace.Stack) []trace.StackFrame {
	if s == trace.NoStack {
		return nil
	}
	var out []trace.StackFrame
	for f := range s.Frames() {
		out = append(out, f)
	}
	return out
}

// StackKey renders frames as "func file:line" lines, the form used to compare
// stacks across traces (PCs differ between files only if the binary differs,
// so they are left out on purpose).
func StackKey(frames []trace.StackFrame) string {
	var sb strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&sb, "%s %s:%d\n", f.Func, f.File, f.Line)
	}
	return sb.String()
}

// StackInfo is what the tools keep of a stack: its frames and two rendered
// keys. Shared through StackCache, so every event with the same stack handle
// costs one map lookup and no allocation.
type StackInfo struct {
	Frames []trace.StackFrame
	Key    string // StackKey(Frames)
	Funcs  string // function names only, one per line
}

// StackCache memoizes StackInfo by stack handle (handles are per generation,
// so the cache grows with generations times distinct stacks) and interns the
// rendered keys across generations.
type StackCache struct {
	byHandle map[trace.Stack]*StackInfo
	byKey    map[string]*StackInfo
}

// NewStackCache returns an empty cache.
func NewStackCache() *StackCache {
	return &StackCache{byHandle: map[trace.Stack]*StackInfo{}, byKey: map[string]*StackInfo{}}
}

var noStack = &StackInfo{}

// Get returns the stack's info; for NoStack, an empty one.
func (c *StackCache) Get(s trace.Stack) *StackInfo {
	if s == trace.NoStack {
		return noStack
	}
	if si, ok := c.byHandle[s]; ok {
		return si
	}
	fr := StackFrames(s)
	key := StackKey(fr)
	si, ok := c.byKey[key]
	if !ok {
		var b strings.Builder
		for _, f := range fr {
			b.WriteString(f.Func)
			b.WriteByte('\n')
		}
		si = &StackInfo{Frames: fr, Key: key, Funcs: b.String()}
		c.byKey[key] = si
	}
	c.byHandle[s] = si
	return si
}

// Distinct is the number of distinct frame lists seen.
func (c *StackCache) Distinct() int { return len(c.byKey) }
