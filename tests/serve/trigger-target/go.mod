module triggertarget
go 1.22
