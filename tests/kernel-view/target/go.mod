module gotraced/tests/kernel-view/target

go 1.19
