//go:build withcgo

package main

// static int add(int a, int b) { return a + b; }
import "C"

// cgoChain calls into C, then captures a Go stack through an inlined helper.
//
//go:noinline
func cgoChain() []uintptr {
	if C.add(1, 2) != 3 {
		panic("cgo add")
	}
	return mid()
}
