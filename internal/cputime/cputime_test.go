package cputime

import (
	"runtime"
	"testing"
)

func TestProcessAdvances(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time here")
	}
	start := Process()
	x := 0
	d := Min(func() {
		for i := 0; i < 20_000_000; i++ {
			x += i % 7
		}
	})
	if Process() <= start || d <= 0 {
		t.Errorf("CPU time did not advance: start %v, now %v, min %v (x=%d)", start, Process(), d, x)
	}
}
