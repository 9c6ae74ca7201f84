//go:build cgo

package main

// #include <unistd.h>
// static int gt_getpid(void) { return (int)getpid(); }
import "C"

// cgoCalls: calls into C (entersyscall/exitsyscall through cgocall, Go's own trace
// shows them as syscalls).
func cgoCalls(n int) {
	for i := 0; i < n; i++ {
		_ = C.gt_getpid()
	}
}
