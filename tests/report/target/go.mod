module gotraced/tests/report/target

go 1.19
