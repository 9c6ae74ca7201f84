package main

import (
	"io"
	"net"
	"sync"
)

// tcp: a loopback echo server and clients (127.0.0.1 only). Reads that find no data
// park in the netpoller (internal/poll -> runtime/netpoll.go netpollblock, trace reason
// "network"); every read and write is a syscall (syscall.Syscall -> entersyscall).
func init() {
	register("tcp", "loopback TCP echo: 8 clients x 300 round trips of 64 bytes", tcpEcho)
}

func tcpEcho(scale int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	var srv sync.WaitGroup
	srv.Add(1)
	go tcpAcceptLoop(ln, &srv)
	const clients = 8
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go tcpClient(ln.Addr().String(), 300*scale, &wg)
	}
	wg.Wait()
	check(ln.Close())
	srv.Wait()
}

func tcpAcceptLoop(ln net.Listener, srv *sync.WaitGroup) {
	defer srv.Done()
	var conns sync.WaitGroup
	for {
		c, err := ln.Accept()
		if err != nil {
			break // listener closed
		}
		conns.Add(1)
		go tcpServe(c, &conns)
	}
	conns.Wait()
}

func tcpServe(c net.Conn, conns *sync.WaitGroup) {
	defer conns.Done()
	defer c.Close()
	buf := make([]byte, 64)
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return // client closed
		}
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

func tcpClient(addr string, n int, wg *sync.WaitGroup) {
	defer wg.Done()
	c, err := net.Dial("tcp", addr)
	check(err)
	defer c.Close()
	msg := make([]byte, 64)
	back := make([]byte, 64)
	for i := 0; i < n; i++ {
		msg[0] = byte(i)
		_, err := c.Write(msg)
		check(err)
		_, err = io.ReadFull(c, back)
		check(err)
		if back[0] != byte(i) {
			panic("tcp: echo mismatch")
		}
	}
}
