module gotraced/tests/report/gotest

go 1.19
