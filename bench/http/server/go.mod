module gotraced/bench/http/server

go 1.19
