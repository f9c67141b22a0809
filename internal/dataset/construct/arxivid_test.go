package construct

import (
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestIDName(t *testing.T) {
	good := map[string]string{
		"2206.03237": "2206.03237", "2206.03237v12": "2206.03237v12", "0704.0001": "0704.0001",
		"hep-th/9901001": "hep-th_9901001", "math.GT/0309136v2": "math.GT_0309136v2", "cond-mat/0102536": "cond-mat_0102536",
	}
	for id, want := range good {
		if got, err := idName(id); got != want || err != nil {
			t.Errorf("idName(%q) = %q, %v; want %q", id, got, err, want)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "2206.03237/..", "2206.03237/../..", "/2206.03237", "2206.03237 ", "2206.03237\x00",
		"2206.032", "22060.3237", "2206.03237v", "hep-th/990100", "hep-th/../9901001", "HEP-TH/9901001", "hep_th/9901001",
		"hep-th\\9901001", "hep-th/9901001/x", "math.gt/0309136", "2206.03237?x", "2206.03237#x", "arXiv:2206.03237"} {
		if got, err := idName(id); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("idName(%q) = %q, %v; want ErrInvalid", id, got, err)
		}
	}
}
