//go:build unix

package biblio

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the test process has
// used: benchmarks report it per operation next to wall time, which a busy
// shared machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
