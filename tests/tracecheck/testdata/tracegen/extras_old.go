//go:build !go1.23

package main

import "context"

func extras(context.Context) {}
