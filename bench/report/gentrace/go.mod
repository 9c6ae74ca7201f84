module gotraced/bench/report/gentrace

go 1.22
