module gotraced/bench/gotest/failing

go 1.19
