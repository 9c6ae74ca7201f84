module gotraced/bench/encoder/workload

go 1.22
