// A tiny, dependency-free Go program that writes its own runtime/trace file.
// It has its own module with an old go line so that every Go toolchain on the
// machine (1.19, 1.21, 1.22, 1.23, 1.26, 1.27) can `go run .` it.
module tracegen

go 1.19
