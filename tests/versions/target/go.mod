module gotraced/tests/versions/target

go 1.19
