package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace/internal/store"
)

// WorthyRate is the share of non-cited claims a check-worthiness model
// called check-worthy in the runs a store holds: what a dry run assumes it
// will call check-worthy next time.
type WorthyRate struct {
	// Rate is Worthy/Claims (0 when Claims is 0).
	Rate float64 `json:"rate"`
	// Claims counts the claims the model decided; Worthy those it called
	// check-worthy. Claims it left to the offline filter are not counted.
	Claims int `json:"claims"`
	Worthy int `json:"worthy"`
}

// MeasuredWorthyRate reads the check-worthiness decisions stored by every
// run in st and counts those made by the classifier named classifier (its
// decisions' reasons start with "classifier: ", as
// factcheck.LLMCheckWorthy writes them, e.g. "openai:gpt-4o-mini: …").
func MeasuredWorthyRate(ctx context.Context, st *store.Store, classifier string) (WorthyRate, error) {
	units, err := st.UnitsOfKind(ctx, unitWorthy, "")
	if err != nil {
		return WorthyRate{}, fmt.Errorf("check-worthiness history: %w", err)
	}
	var r WorthyRate
	prefix := classifier + ": "
	for _, u := range units {
		var w worthy
		if json.Unmarshal(u.Data, &w) != nil || len(w.Worthy) != len(w.Reasons) {
			continue
		}
		for i, why := range w.Reasons {
			if !strings.HasPrefix(why, prefix) {
				continue
			}
			r.Claims++
			if w.Worthy[i] {
				r.Worthy++
			}
		}
	}
	if r.Claims > 0 {
		r.Rate = float64(r.Worthy) / float64(r.Claims)
	}
	return r, nil
}
