//go:build !unix

package arxivsnap_test

import "time"

// cpuTime is not measured here; CPU-based metrics read 0.
func cpuTime() time.Duration { return 0 }
