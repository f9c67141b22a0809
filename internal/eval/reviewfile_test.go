package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
)

func TestReadReviewFile(t *testing.T) {
	in := `{"id":"2401.00001/c1/https://a.example/1?x=1","label":"Supported"}

{"id":"2401.00001/c3","label":true}
{"id":"2401.00002/c4","label":"undecided"}
{"id":"2401.00002/c1/","label":"unknown"}
`
	got, err := ReadReviewFile(strings.NewReader(in), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []HumanReview{
		{Task: "2401.00001", Claim: "c1", URL: "https://a.example/1?x=1", Label: "supported"},
		{Task: "2401.00001", Claim: "c3", Label: "true"},
		{Task: "2401.00002", Claim: "c4", Label: "undecided"},
		{Task: "2401.00002", Claim: "c1", URL: "", Label: "unknown"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for name, line := range map[string]string{
		"not JSON":          `id=2401/c1 label=true`,
		"no id":             `{"label":"supported"}`,
		"bad id":            `{"id":"2401.00001","label":"supported"}`,
		"fact label a pair": `{"id":"2401.00001/c1/https://a.example/1","label":"true"}`,
		"pair label a fact": `{"id":"2401.00001/c3","label":"supported"}`,
		"boolean for pair":  `{"id":"2401.00001/c1/https://a.example/1","label":true}`,
		"number label":      `{"id":"2401.00001/c3","label":1}`,
		"no label":          `{"id":"2401.00001/c3"}`,
	} {
		_, err := ReadReviewFile(strings.NewReader("{\"id\":\"t/c\",\"label\":\"false\"}\n"+line), "r.jsonl")
		if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "r.jsonl:2") {
			t.Errorf("%s: err = %v, want ErrInvalid at r.jsonl:2", name, err)
		}
	}
}

func FuzzReadReviewFile(f *testing.F) {
	f.Add([]byte(`{"id":"t/c1/https://x.example/a","label":"partial"}` + "\n" + `{"id":"t/c2","label":false}`))
	f.Add([]byte(`{"id":"t//","label":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rvs, err := ReadReviewFile(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			return
		}
		for _, rv := range rvs {
			if rv.Task == "" || rv.Claim == "" || rv.Label == "" {
				t.Fatalf("review %+v", rv)
			}
		}
	})
}
