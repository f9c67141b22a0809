package web

import (
	"context"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/eval"
)

// TestReviewSamplePages: without a sample the run page shows the judge's
// raw figures and how many reviews would give ±5 points; with one, the run
// and audit pages show how far its review is and link the next unit, and
// reviews of its units give the figures an estimate and an interval.
func TestReviewSamplePages(t *testing.T) {
	f := demoFixture(t, testToken)
	ctx := context.Background()
	runPath := "/runs/" + f.run

	code, body, _ := f.get(t, runPath)
	if code != http.StatusOK {
		t.Fatalf("GET run: %d", code)
	}
	text := html.UnescapeString(body)
	for _, want := range []string{"No review sample drawn", "claimtrace review sample --run " + f.run, "Match rate", "the judge's raw rate, no review yet: about"} {
		if !strings.Contains(text, want) {
			t.Errorf("run page without a sample lacks %q", want)
		}
	}

	results, err := eval.ReviewResults(ctx, f.st, f.run)
	if err != nil {
		t.Fatal(err)
	}
	frame := eval.ReviewFrame(results)
	var pairs []eval.ReviewUnit
	for _, u := range frame {
		if u.Kind == eval.ReviewPair {
			pairs = append(pairs, u)
		}
	}
	if len(pairs) < 6 {
		t.Fatalf("the demo has %d pairs; the test wants 6", len(pairs))
	}
	sample := eval.StoredSample{Seed: 5, Frame: len(frame), Units: pairs[:6]}
	if err := eval.WriteReviewSample(ctx, f.st, f.run, sample); err != nil {
		t.Fatal(err)
	}
	// Review the first two units of the sample, naming their sources.
	for _, u := range pairs[:2] {
		f.postReview(t, map[string]string{"claim": u.Claim, "url": u.URL, "reviewer": "ines", "label": "supported"})
	}
	got, err := f.srv.HumanReviews(ctx, f.run)
	if err != nil || len(got) != 2 || got[0].Label != "supported" || got[0].URL == "" {
		t.Fatalf("HumanReviews = %+v, %v", got, err)
	}

	_, body, _ = f.get(t, runPath)
	text = html.UnescapeString(body)
	next := pairs[2]
	for _, want := range []string{"2 of 6 reviewed", "next: ", "claim " + next.Claim, "?claim=" + next.Claim, "reviews alone", "2 of "} {
		if !strings.Contains(text, want) {
			t.Errorf("run page with a sample lacks %q", want)
		}
	}
	_, body, _ = f.get(t, f.reportPath())
	if text := html.UnescapeString(body); !strings.Contains(text, "Review sample: <strong>2 of 6 reviewed</strong>") {
		t.Errorf("audit page lacks the review progress")
	}
}
