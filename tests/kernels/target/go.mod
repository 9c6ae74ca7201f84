module kerneltarget

go 1.26
