module gotraced/bench/startup/hello

go 1.19
