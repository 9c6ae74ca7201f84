//go:build go1.25

package main

import (
	"os"
	"runtime/trace"
	"time"
)

// startFlightRecorder runs runtime/trace.FlightRecorder beside trace.Start
// (allowed since Go 1.25). Its snapshot keeps only the most recent whole
// generations (MinAge), so it covers a later window than the full trace.
func startFlightRecorder(path string, minAge time.Duration) (snap func(), stop func(), err error) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: minAge, MaxBytes: 64 << 20})
	if err := fr.Start(); err != nil {
		return nil, nil, err
	}
	snap = func() {
		f, err := os.Create(path)
		check(err)
		_, err = fr.WriteTo(f)
		check(err)
		check(f.Close())
	}
	return snap, fr.Stop, nil
}
