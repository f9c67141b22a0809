package labels

import (
	"crypto/sha256"
	"fmt"

	"github.com/claimtrace/claimtrace"
)

// Split selects a deterministic half of every dataset.
type Split string

// Splits. A pair belongs to the calibration half or the test half by a
// hash of its dataset and id, so the halves are the same on every machine
// and do not depend on the order or the other contents of a file.
const (
	SplitAll   Split = "all"
	SplitCalib Split = "calib"
	SplitTest  Split = "test"
)

// splitSalt versions the hash: changing it would reshuffle the halves and
// invalidate every reported held-out figure.
const splitSalt = "claimtrace/judge-split/v1"

// ParseSplit reads a split name (calib, test or all).
func ParseSplit(s string) (Split, error) {
	switch Split(s) {
	case SplitAll, SplitCalib, SplitTest:
		return Split(s), nil
	}
	return "", fmt.Errorf("split %q: want calib, test or all: %w", s, claimtrace.ErrInvalid)
}

// HalfOf returns the half (SplitCalib or SplitTest) a pair falls in.
func HalfOf(p Pair) Split {
	sum := sha256.Sum256([]byte(splitSalt + "\x00" + p.Dataset + "\x00" + p.ID))
	if sum[0]&1 == 0 {
		return SplitCalib
	}
	return SplitTest
}

// Contains reports whether p is in the split.
func (s Split) Contains(p Pair) bool {
	return s == SplitAll || HalfOf(p) == s
}

// Filter returns the pairs in the split, in order.
func Filter(pairs []Pair, s Split) []Pair {
	var out []Pair
	for _, p := range pairs {
		if s.Contains(p) {
			out = append(out, p)
		}
	}
	return out
}
