package eval

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/store"
)

// TestMeasuredWorthyRate counts only the decisions of the named model,
// across runs, leaving out claims the offline filter decided for it,
// other models' decisions, failed units and undecodable data.
func TestMeasuredWorthyRate(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(run, key, status string, w any) {
		t.Helper()
		if err := st.EnsureRun(t.Context(), run, "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(w)
		if err := st.PutUnit(t.Context(), store.Unit{Run: run, Kind: unitWorthy, Key: key, Status: status, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	put("r1", "t1", store.StatusDone, worthy{
		Claims:  []string{"a", "b", "c", "d"},
		Worthy:  []bool{true, false, true, true},
		Reasons: []string{"openai:gpt-4o-mini: a figure", "openai:gpt-4o-mini: an opinion", "offline filter (no model answer): has a number", "openai:gpt-4o: specific"},
	})
	put("r2", "t2", store.StatusDone, worthy{
		Claims:  []string{"e", "f"},
		Worthy:  []bool{false, true},
		Reasons: []string{"openai:gpt-4o-mini: vague", "openai:gpt-4o-mini: a date"},
	})
	put("r3", "t3", store.StatusFailed, worthy{Claims: []string{"g"}, Worthy: []bool{true}, Reasons: []string{"openai:gpt-4o-mini: x"}})
	put("r3", "t4", store.StatusDone, "not the unit's shape")

	got, err := MeasuredWorthyRate(t.Context(), st, "openai:gpt-4o-mini")
	if err != nil {
		t.Fatal(err)
	}
	if want := (WorthyRate{Rate: 0.5, Claims: 4, Worthy: 2}); got != want {
		t.Errorf("MeasuredWorthyRate = %+v, want %+v", got, want)
	}
	none, err := MeasuredWorthyRate(t.Context(), st, "anthropic:claude-sonnet-4-5")
	if err != nil || none != (WorthyRate{}) {
		t.Errorf("a model without history: %+v, %v; want zero", none, err)
	}
}
