package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/ppi"
)

func TestReadVerdicts(t *testing.T) {
	in := `{"dataset":"harbour","id":"h-01","line":1,"claim":"The harbour reopened in May.","gold":"supported","predicted":"supported","verdict":{"label":"supported","strength":0.8}}

{"dataset":"harbour","id":"h-02","line":2,"predicted":"","verdict":{"label":"partial"}}
{"id":17,"predicted":"not_supported"}
{"id":"h-04","verdict":{"label":"unknown"}}
`
	got, err := ReadVerdicts(strings.NewReader(in), "v.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Judged{{"h-01", claimtrace.Supported}, {"h-02", claimtrace.Partial}, {"17", claimtrace.Unsupported}, {"h-04", claimtrace.Unknown}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadVerdicts (-want +got):\n%s", d)
	}
}

func TestReadVerdictsBad(t *testing.T) {
	for name, c := range map[string]struct{ in, where string }{
		"not JSON":     {"{\"id\":\"a\",\"predicted\":\"supported\"}\nharbour opened\n", "v.jsonl:2"},
		"no id":        {`{"predicted":"supported"}`, "v.jsonl:1"},
		"blank id":     {`{"id":"  ","predicted":"supported"}`, "v.jsonl:1"},
		"no label":     {`{"id":"a"}`, "v.jsonl:1"},
		"odd label":    {`{"id":"a","predicted":"maybe"}`, "v.jsonl:1"},
		"duplicate id": {"{\"id\":\"a\",\"predicted\":\"supported\"}\n{\"id\":\"a\",\"predicted\":\"partial\"}", "v.jsonl:2"},
		"an array":     {`["a","supported"]`, "v.jsonl:1"},
	} {
		_, err := ReadVerdicts(strings.NewReader(c.in), "v.jsonl")
		if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), c.where) {
			t.Errorf("%s: err = %v, want ErrInvalid at %s", name, err, c.where)
		}
	}
}

func TestReadReviews(t *testing.T) {
	in := `{"id":"h-01","label":"supported"}
{"id":"h-02","label":"Partially supported"}
{"id":"h-03","label":false}
{"id":"h-04","label":"UNKNOWN"}
{"id":5,"label":"refuted"}
`
	got, err := ReadReviews(strings.NewReader(in), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []HumanLabel{{"h-01", claimtrace.Supported}, {"h-02", claimtrace.Partial}, {"h-03", claimtrace.Unsupported},
		{"h-04", claimtrace.Unknown}, {"5", claimtrace.Contradicted}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadReviews (-want +got):\n%s", d)
	}
	for name, in := range map[string]string{
		"no label":    `{"id":"a"}`,
		"null label":  `{"id":"a","label":null}`,
		"odd label":   `{"id":"a","label":"perhaps"}`,
		"no id":       `{"label":"supported"}`,
		"twice":       "{\"id\":\"a\",\"label\":\"supported\"}\n{\"id\":\"a\",\"label\":\"unsupported\"}",
		"garbage":     "\x00\x01 not json",
		"label array": `{"id":"a","label":["supported"]}`,
	} {
		if _, err := ReadReviews(strings.NewReader(in), "r.jsonl"); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "r.jsonl:") {
			t.Errorf("%s: err = %v, want ErrInvalid naming r.jsonl:line", name, err)
		}
	}
}

func TestEstimateRates(t *testing.T) {
	var judged []Judged
	for i := range 60 {
		l := claimtrace.Supported
		if i%3 == 0 {
			l = claimtrace.Unsupported
		}
		judged = append(judged, Judged{ID: string(rune('A'+i%26)) + string(rune('a'+i/26)), Label: l})
	}
	var reviews []HumanLabel
	for k, i := range ppi.Draw(len(judged), 20, 4) {
		l := judged[i].Label
		if k%5 == 0 { // the humans disagree with the judge on a fifth
			l = claimtrace.Contradicted
		}
		reviews = append(reviews, HumanLabel{ID: judged[i].ID, Label: l})
	}
	est, err := EstimateRates(judged, reviews)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := est.Present(), []claimtrace.Label{claimtrace.Supported, claimtrace.Unsupported, claimtrace.Contradicted}; !cmp.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	c := est.Labels[claimtrace.Contradicted]
	if c.Judge != 0 || c.Estimate == nil || *c.Estimate <= 0 || c.NReviews != 20 || c.N != 60 {
		t.Errorf("contradicted: %+v: the judge never says it, the humans say it of 4 of 20", c)
	}
	_, err = EstimateRates(judged, append(reviews, HumanLabel{ID: "nope", Label: claimtrace.Supported}, HumanLabel{ID: "gone", Label: claimtrace.Partial}))
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), `"nope", "gone"`) {
		t.Errorf("reviews of unknown ids: err = %v, want one naming them", err)
	}
	if _, err := EstimateRates(nil, reviews); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("no verdicts: err = %v", err)
	}
	none, err := EstimateRates(judged, nil)
	if err != nil || none.Labels[claimtrace.Supported].Estimate != nil {
		t.Errorf("no reviews: %+v, %v; want the judge's rates without estimates", none, err)
	}
}

func FuzzReadReviews(f *testing.F) {
	f.Add([]byte(`{"id":"a","label":"supported"}` + "\n" + `{"id":2,"label":true}`))
	f.Add([]byte(`{"id":"a","label":"partial"}` + "\n\n" + `{"id":"a","label":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ReadReviews(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range rs {
			if r.ID == "" || seen[r.ID] || !validLabel(r.Label) {
				t.Fatalf("review %+v: empty, repeated or unknown label", r)
			}
			seen[r.ID] = true
		}
	})
}

func FuzzReadVerdicts(f *testing.F) {
	f.Add([]byte(`{"id":"a","predicted":"supported","verdict":{"label":"supported"}}`))
	f.Add([]byte(`{"id":1,"verdict":{"label":"unknown"}}` + "\n" + `{"id":"1","predicted":"no"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		vs, err := ReadVerdicts(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			return
		}
		for _, v := range vs {
			if v.ID == "" || !validLabel(v.Label) {
				t.Fatalf("verdict %+v", v)
			}
		}
		if _, err := EstimateRates(vs, nil); len(vs) > 0 && err != nil {
			t.Fatal(err)
		}
	})
}

func validLabel(l claimtrace.Label) bool {
	for _, k := range EstimatedLabels {
		if l == k {
			return true
		}
	}
	return false
}
