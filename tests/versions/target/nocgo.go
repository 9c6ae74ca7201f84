//go:build !cgo

package main

// cgoCalls: nothing without cgo (the flavour's binary has no C).
func cgoCalls(n int) {}
