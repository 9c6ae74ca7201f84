module gobinprog

go 1.19
