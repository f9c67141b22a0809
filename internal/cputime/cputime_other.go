//go:build !unix

package cputime

import "time"

// Process returns 0 where the CPU time of the process is not available.
func Process() time.Duration { return 0 }
