module gotraced/bench/host/idle

go 1.19
