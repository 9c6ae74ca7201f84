module gotraced.dev/demo

go 1.21
