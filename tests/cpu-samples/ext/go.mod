module gotraced/tests/cpu-samples/ext

go 1.22
