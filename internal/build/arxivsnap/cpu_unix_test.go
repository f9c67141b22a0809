//go:build unix

package arxivsnap_test

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system CPU time this process has used, so
// that benchmarks can report throughput per CPU second, which other
// processes on a shared machine do not skew.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
