//go:build !go1.25

package main

import (
	"errors"
	"time"
)

func startFlightRecorder(string, time.Duration) (func(), func(), error) {
	return nil, nil, errors.New("-fr needs Go 1.25+ (runtime/trace.FlightRecorder)")
}
