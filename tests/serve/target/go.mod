module gotraced.test/serve-target

go 1.22
