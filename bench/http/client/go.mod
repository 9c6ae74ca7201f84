module gotraced/bench/http/client

go 1.19
