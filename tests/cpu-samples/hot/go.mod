module gotraced/tests/cpu-samples/hot

go 1.22
