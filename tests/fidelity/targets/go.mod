// Fidelity targets: Go programs that write their own runtime/trace file while
// gotraced records them (tests/suites/50-fidelity.sh) and that the overhead bench
// times (scripts/bench-overhead.sh). `go 1.22` so that every toolchain we claim
// (1.22, 1.23, 1.26, 1.27) builds it without switching toolchains.
module fidelitytargets

go 1.22
