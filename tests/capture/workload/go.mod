module capturework

go 1.19
