package web

import (
	"context"
	"encoding/json"
	"html"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/store"
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
	// One reviewer's reviews of two sources of one claim are two labels,
	// and a later review of the same source replaces the earlier; a review
	// of an older text of the report does not count.
	sha := results[0].SHA256
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	for k, rv := range []Review{
		{URL: "https://one.example/a", Label: "unsupported", ReportSHA256: sha},
		{URL: "https://one.example/a", Label: "partial", ReportSHA256: sha},
		{URL: "https://two.example/b", Label: "supported", ReportSHA256: sha},
		{URL: "https://two.example/b", Label: "contradicted", ReportSHA256: "an-older-text"},
	} {
		rv.Task, rv.Claim, rv.Reviewer, rv.At = f.task, "c1", "omar", at.Add(time.Duration(k)*time.Minute)
		data, _ := json.Marshal(rv)
		if err := f.st.AppendReview(ctx, store.Review{Run: f.run, Task: f.task, Claim: "c1", Reviewer: "omar", Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	got, err = f.srv.HumanReviews(ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]string{}
	for _, rv := range got {
		if rv.Claim == "c1" && (rv.URL == "https://one.example/a" || rv.URL == "https://two.example/b") {
			byURL[rv.URL] = rv.Label
		}
	}
	if want := map[string]string{"https://one.example/a": "partial", "https://two.example/b": "supported"}; !maps.Equal(byURL, want) {
		t.Errorf("omar's reviews of c1: %v; want %v", byURL, want)
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
