// The pprof labels fidelity target (tests/suites/57-labels.sh). `go 1.19` so that every
// toolchain we claim builds it without switching toolchains.
module labelstarget

go 1.19
