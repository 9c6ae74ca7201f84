module gotraced/bench/state-sample/blocked

go 1.19
