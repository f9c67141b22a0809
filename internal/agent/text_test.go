package agent_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/search"
)

func TestInsertCitations(t *testing.T) {
	const text = "Radar works in fog. Lidar does not. Cameras need light."
	tests := []struct {
		name  string
		cites []llm.WebCitation
		want  string
	}{
		{"none", nil, text},
		{"one span", []llm.WebCitation{{URL: "https://a.org/radar", Start: 0, End: 19}},
			"Radar works in fog. [1](https://a.org/radar) Lidar does not. Cameras need light."},
		{"two urls on one span, one reused", []llm.WebCitation{
			{URL: "https://a.org/radar", Start: 0, End: 19},
			{URL: "https://b.org/lidar", Start: 0, End: 19},
			{URL: "https://a.org/radar", Start: 36, End: 55},
		}, "Radar works in fog. [1](https://a.org/radar) [2](https://b.org/lidar) Lidar does not. Cameras need light. [1](https://a.org/radar)"},
		{"no location goes to a source list", []llm.WebCitation{{URL: "https://c.org/cams"}},
			text + "\n\nSources:\n\n[1] https://c.org/cams\n"},
		{"url already in the text is left alone", []llm.WebCitation{{URL: "fog.", Start: 0, End: 19}}, text},
		{"span out of range is listed", []llm.WebCitation{{URL: "https://d.org", Start: 5, End: 500}},
			text + "\n\nSources:\n\n[1] https://d.org\n"},
	}
	for _, tt := range tests {
		if got := agent.InsertCitations(text, tt.cites); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	// A span ending inside a multi-byte character moves to its end.
	got := agent.InsertCitations("Ünïcödé text", []llm.WebCitation{{URL: "https://u.org", Start: 0, End: 2}})
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "Ü [1](https://u.org)") {
		t.Errorf("multi-byte span: %q", got)
	}
}

func FuzzInsertCitations(f *testing.F) {
	f.Add("Radar works in fog. Lidar does not.", "https://a.org", 0, 19)
	f.Add("ü", "https://b.org", 0, 1)
	f.Add("", "https://c.org", 0, 0)
	f.Add("text", "", 3, 2)
	f.Fuzz(func(t *testing.T, text, u string, start, end int) {
		got := agent.InsertCitations(text, []llm.WebCitation{{URL: u, Start: start, End: end}, {URL: u + "/2", Start: end, End: end}})
		// Only insertions: the original text is a subsequence, in order.
		i := 0
		for j := 0; j < len(got) && i < len(text); j++ {
			if got[j] == text[i] {
				i++
			}
		}
		if i != len(text) {
			t.Fatalf("InsertCitations(%q) = %q lost text", text, got)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("InsertCitations broke UTF-8: %q", got)
		}
	})
}

func TestTruncateChars(t *testing.T) {
	tests := []struct {
		in        string
		n         int
		want      string
		total     int
		truncated bool
	}{
		{"short", 10, "short", 5, false},
		{"exactly", 7, "exactly", 7, false},
		{"one two three four", 9, "one two", 18, true},
		{"ünïcödé wörds hère", 10, "ünïcödé", 18, true},
		{"nospaceatallhere", 5, "nospa", 16, true},
		{"anything", 0, "anything", 8, false},
		{"日本語のテキストです", 4, "日本語の", 10, true},
	}
	for _, tt := range tests {
		got, total, tr := agent.TruncateChars(tt.in, tt.n)
		if got != tt.want || total != tt.total || tr != tt.truncated {
			t.Errorf("TruncateChars(%q, %d) = %q, %d, %v; want %q, %d, %v", tt.in, tt.n, got, total, tr, tt.want, tt.total, tt.truncated)
		}
	}
}

func FuzzTruncateChars(f *testing.F) {
	f.Add("one two three", 5)
	f.Add("ü ü ü", 2)
	f.Add("", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got, total, tr := agent.TruncateChars(s, n)
		if !strings.HasPrefix(s, got) {
			t.Fatalf("%q is not a prefix of %q", got, s)
		}
		if n > 0 && utf8.RuneCountInString(got) > n {
			t.Fatalf("%d characters kept, limit %d", utf8.RuneCountInString(got), n)
		}
		if total != utf8.RuneCountInString(s) || tr != (n > 0 && total > n) {
			t.Fatalf("total %d, truncated %v for %d chars, n %d", total, tr, utf8.RuneCountInString(s), n)
		}
	})
}

func TestParseArguments(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`{"query":"radar"}`, "radar", true},
		{` {"query":"radar","extra":1} `, "radar", true},
		{`"{\"query\":\"as a string\"}"`, "as a string", true},
		{`["radar"]`, "", false},
		{`"radar"`, "", false},
		{``, "", false},
		{`{"query":`, "", false},
	}
	for _, tt := range tests {
		var v struct {
			Query string `json:"query"`
		}
		err := agent.ParseArguments(json.RawMessage(tt.raw), &v)
		if (err == nil) != tt.ok || v.Query != tt.want {
			t.Errorf("ParseArguments(%s) = %q, %v", tt.raw, v.Query, err)
		}
	}
}

func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`{"query":"x"}`, `"{\"url\":\"y\"}"`, `[]`, `null`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v map[string]any
		_ = agent.ParseArguments(json.RawMessage(raw), &v)
	})
}

func TestFormatResults(t *testing.T) {
	got := agent.FormatResults("radar", []search.Result{
		{Title: "Radar Review", URL: "https://arxiv.org/abs/2312.04861", Snippet: "A review."},
		{URL: "https://example.org/x"},
	})
	want := "Search results for \"radar\":\n\n1. Radar Review\n   URL: https://arxiv.org/abs/2312.04861\n   A review.\n\n2. (no title)\n   URL: https://example.org/x"
	if got != want {
		t.Errorf("FormatResults:\n got %q\nwant %q", got, want)
	}
	if got := agent.FormatResults("zzz", nil); got != `No results for "zzz".` {
		t.Errorf("no results: %q", got)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{`{"task_id":"x","status":"done","response":"r"}`, `{"status":7}`, `[]`, `{`, `{"transcript":[{"role":"tool","results":[{}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := agent.DecodeRecord("fuzz.json", b)
		if err == nil && rec == nil {
			t.Fatal("nil record without error")
		}
	})
}
