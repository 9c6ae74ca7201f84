//go:build !withcgo

package main

func cgoChain() []uintptr { return nil }
