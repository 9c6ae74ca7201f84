module gotraced.test/callers

go 1.19
