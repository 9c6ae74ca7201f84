package main

// Small functions the compiler inlines into crossOuter (main.go): the inlined frames'
// file differs from the physical frame's.
func helperB() []uintptr { return capture() }
func helperA() []uintptr {
	x := helperB()
	return x
}
