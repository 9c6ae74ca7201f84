package main

import (
	"io"
	"os"
	"path/filepath"
	"sync"
)

// syscalls: blocking file syscalls (write, read, fsync, stat, seek in a temp dir) and a
// pipe between two goroutines. os.File methods go through syscall.Syscall, which calls
// runtime entersyscall/exitsyscall (GoSyscallBegin/End; a slow fsync gets its P retaken
// by sysmon: GoSyscallEndBlocked). os.Pipe's ends are in the netpoller, so a read that
// finds the pipe empty parks ("network").
func init() {
	register("syscalls", "pipe between goroutines + file write/read/fsync/stat in a temp dir", syscallsWork)
}

func syscallsWork(scale int) {
	dir := *tmpDir
	if dir == "" {
		d, err := os.MkdirTemp("", "fidelity-syscalls-")
		check(err)
		defer os.RemoveAll(d)
		dir = d
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go pipePart(&wg, 2000*scale)
	go filePart(&wg, dir, 400*scale)
	wg.Wait()
}

func pipePart(wg *sync.WaitGroup, n int) {
	defer wg.Done()
	r, w, err := os.Pipe()
	check(err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 128)
		for i := 0; i < n; i++ {
			if _, err := io.ReadFull(r, buf); err != nil {
				panic(err)
			}
		}
		check(r.Close())
	}()
	msg := make([]byte, 128)
	for i := 0; i < n; i++ {
		msg[0] = byte(i)
		_, err := w.Write(msg)
		check(err)
	}
	<-done
	check(w.Close())
}

func filePart(wg *sync.WaitGroup, dir string, n int) {
	defer wg.Done()
	path := filepath.Join(dir, "data")
	f, err := os.Create(path)
	check(err)
	block := make([]byte, 4096)
	for i := 0; i < n; i++ {
		block[0] = byte(i)
		_, err := f.Write(block)
		check(err)
		if i%40 == 39 {
			check(f.Sync())
		}
	}
	_, err = f.Seek(0, io.SeekStart)
	check(err)
	for i := 0; i < n; i++ {
		_, err := io.ReadFull(f, block)
		check(err)
		if block[0] != byte(i) {
			panic("syscalls: read back mismatch")
		}
	}
	check(f.Close())
	for i := 0; i < 50; i++ {
		_, err := os.Stat(path)
		check(err)
	}
	check(os.Remove(path))
}
