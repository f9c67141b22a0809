// Package cputime measures the CPU time the process uses, for benchmarks
// and linear-time tests: unlike wall time, other processes on a busy
// machine do not inflate it.
package cputime

import "time"

// Min returns the least CPU time of three runs of f.
func Min(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := Process()
		f()
		best = min(best, Process()-start)
	}
	return best
}
