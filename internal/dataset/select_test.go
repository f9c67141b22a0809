package dataset

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestSelect(t *testing.T) {
	d, err := LoadDataset("testdata/mini")
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ts []claimtrace.Task) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ArXivID)
		}
		return out
	}
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{"all", nil, []string{"2401.00001", "2302.00002"}},
		{"one", []string{"2302.00002"}, []string{"2302.00002"}},
		{"dataset order, once each", []string{"2302.00002", "2401.00001", "2302.00002"}, []string{"2401.00001", "2302.00002"}},
	}
	for _, tt := range tests {
		got, err := d.Select(tt.ids)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
			t.Errorf("%s: Select(%v) (-want +got):\n%s", tt.name, tt.ids, diff)
		}
	}
	_, err = d.Select([]string{"2401.00001", "9999.99999"})
	if !errors.Is(err, claimtrace.ErrNotFound) || !strings.Contains(err.Error(), "no task 9999.99999 in ") {
		t.Errorf("unknown id: %v, want ErrNotFound naming it", err)
	}
}
