package importer

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// claimCites is what a reader checks first: each claim's text and the URLs
// (or markers, for dangling citations) it cites.
type claimCites struct {
	Text string
	Cite []string
}

func summarize(r *Result) []claimCites {
	var out []claimCites
	for _, c := range r.Doc.Claims {
		cc := claimCites{Text: c.Text}
		for _, i := range c.Citations {
			ct := r.Doc.Citations[i]
			if ct.URL != "" {
				cc.Cite = append(cc.Cite, ct.URL)
			} else {
				cc.Cite = append(cc.Cite, ct.Marker)
			}
		}
		out = append(out, cc)
	}
	return out
}

func TestImport(t *testing.T) {
	tests := []struct {
		provider, file string
		model          string
		want           []claimCites
		strengths      int // edges with a strength
	}{
		{"openai", "openai-responses.json", "o3-deep-research-2025-06-26", []claimCites{
			{"A 2025 tweezer array held 6,100 atomic qubits with ≈12.6 s coherence", []string{"https://www.nature.com/articles/s41586-025-09641-4"}},
			{"Two-qubit gate fidelities reached 99.5% in arrays of 60 atoms", []string{"https://arxiv.org/abs/2403.12021", "https://quantum-journal.org/papers/q-2024-05-14-1234/"}},
			{"Mid-circuit erasure conversion was demonstrated in Rydberg arrays — a step towards QEC", []string{"https://physics.aps.org/articles/v17/45"}},
		}, 0},
		// Offsets in UTF-16 units (an emoji before the marker).
		{"openai", "openai-chat.json", "gpt-4o-search-preview-2025-03-11", []claimCites{
			{"🦟 Malaria caused an estimated 597,000 deaths in 2023", []string{"https://www.who.int/news-room/fact-sheets/detail/malaria"}},
		}, 0},
		{"gemini", "gemini.json", "gemini-2.5-flash", []claimCites{
			{"São Paulo’s metro carried 3.7 million passengers a day in 2024.", []string{
				"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQH1",
				"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQH2"}},
			{"A new line costs about €4 billion.", []string{"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQH2"}},
			{"Fares rose to R$5.20 in January.", []string{"gs://transit-docs/sp-fares-2025.pdf"}},
		}, 3},
		{"anthropic", "anthropic.json", "claude-sonnet-4-5-20250929", []claimCites{
			{"Spain won Euro 2024, beating England 2-1 in the final in Berlin.", []string{
				"https://www.uefa.com/euro2024/news/0290-1b8e-final-report/", "https://en.wikipedia.org/wiki/UEFA_Euro_2024_final"}},
			{"Mikel Oyarzabal scored the winner in the 86th minute.", []string{"https://www.uefa.com/euro2024/news/0290-1b8e-final-report/"}},
			{"The tournament report notes a record attendance.", []string{""}},
			{"Spain also topped the passing statistics.", []string{"https://stats.example.org/euro2024"}},
		}, 0},
		{"perplexity", "perplexity.json", "sonar-pro", []claimCites{
			{"Spain won Euro 2024, beating England 2-1 in the final", []string{"https://www.uefa.com/euro2024/", "https://en.wikipedia.org/wiki/UEFA_Euro_2024_final"}},
			{"Oyarzabal scored the winner in the 86th minute", []string{"https://www.uefa.com/euro2024/", "https://www.bbc.com/sport/football/articles/euro-final"}},
			{"Spain's 13 goals were a tournament record", []string{"[9]"}},
		}, 0},
		{"perplexity", "perplexity-citations.json", "sonar", []claimCites{
			{"Spain won Euro 2024, beating England 2-1 in the final", []string{"https://www.uefa.com/euro2024/", "https://en.wikipedia.org/wiki/UEFA_Euro_2024_final"}},
			{"Oyarzabal scored the winner in the 86th minute", []string{"https://www.uefa.com/euro2024/", "https://www.bbc.com/sport/football/articles/euro-final"}},
			{"Spain's 13 goals were a tournament record", []string{"[9]"}},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := Import(tt.provider, read(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			check(t, r)
			if r.Model != tt.model || r.Graph.Agent != tt.model {
				t.Errorf("model = %q, graph agent %q; want %q", r.Model, r.Graph.Agent, tt.model)
			}
			if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
			n := 0
			for _, e := range r.Graph.Edges {
				if e.Strength != nil {
					n++
				}
			}
			if n != tt.strengths {
				t.Errorf("%d edges with a strength, want %d", n, tt.strengths)
			}
			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(tt.file, ".json")+".golden.json", append(got, '\n'))
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// check asserts what every import must hold: spans inside the text, claim
// texts equal to their spans, citation indices valid, graph valid and
// matching the document.
func check(t *testing.T, r *Result) {
	t.Helper()
	if r.Doc.Text != r.Text {
		t.Fatalf("document text differs from result text")
	}
	for _, c := range r.Doc.Claims {
		if c.Start < 0 || c.End > len(r.Text) || c.Start >= c.End {
			t.Fatalf("claim %s span [%d, %d) outside text of %d bytes", c.ID, c.Start, c.End, len(r.Text))
		}
		if r.Text[c.Start:c.End] != c.Text {
			t.Fatalf("claim %s text %q is not its span %q", c.ID, c.Text, r.Text[c.Start:c.End])
		}
		for _, i := range c.Citations {
			if i < 0 || i >= len(r.Doc.Citations) {
				t.Fatalf("claim %s cites citation %d of %d", c.ID, i, len(r.Doc.Citations))
			}
		}
	}
	for i, c := range r.Doc.Citations {
		if c.Start < 0 || c.End > len(r.Text) || c.Start > c.End {
			t.Fatalf("citation %d span [%d, %d) outside text", i, c.Start, c.End)
		}
		if c.Kind != claimtrace.KindGrounding && r.Text[c.Start:c.End] != c.Marker {
			t.Fatalf("citation %d marker %q is not its span %q", i, c.Marker, r.Text[c.Start:c.End])
		}
	}
	if err := r.Graph.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(r.Graph.Claims) != len(r.Doc.Claims) {
		t.Fatalf("graph has %d claims, document %d", len(r.Graph.Claims), len(r.Doc.Claims))
	}
	for i, c := range r.Graph.Claims {
		if c.Statement != r.Doc.Claims[i].Text || c.Location.Start != r.Doc.Claims[i].Start {
			t.Fatalf("graph claim %d differs from document claim", i)
		}
	}
	for _, s := range r.Graph.Sources {
		if s.Resolved {
			t.Fatalf("source %s marked resolved by an importer", s.ID)
		}
	}
}

func TestOpenAIOffsetUnits(t *testing.T) {
	link := "[ex.org](https://ex.org/a)"
	text := "Über 90 % der Fälle ≈ gelöst " + link + ". Rest."
	byteStart := strings.Index(text, link)
	runeStart := len([]rune(text[:byteStart]))
	resp := func(start, end int, url string) []byte {
		b, _ := json.Marshal(map[string]any{"model": "m", "output": []any{map[string]any{"type": "message", "content": []any{
			map[string]any{"type": "output_text", "text": text, "annotations": []any{
				map[string]any{"type": "url_citation", "start_index": start, "end_index": end, "url": url, "title": "Ex"}}}}}}})
		return b
	}
	tests := []struct {
		name       string
		start, end int
		url        string
		wantErr    bool
	}{
		{"code points", runeStart, runeStart + len(link), "https://ex.org/a", false},
		{"code points, end inclusive", runeStart, runeStart + len(link) - 1, "https://ex.org/a", false},
		{"bytes", byteStart, byteStart + len(link), "https://ex.org/a", false},
		{"wrong offsets, link found by search", 2, 5, "https://ex.org/a", false},
		{"wrong offsets, utm parameter", 2, 5, "https://ex.org/a?utm_source=openai", false},
		{"no such link", 2, 5, "https://other.org/", true},
		{"negative", -1, 5, "https://ex.org/a", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := OpenAI(resp(tt.start, tt.end, tt.url))
			if tt.wantErr {
				if !errors.Is(err, claimtrace.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			check(t, r)
			c := r.Doc.Citations[0]
			if c.Start != byteStart || c.Marker != link {
				t.Errorf("marker %q at %d, want %q at %d", c.Marker, c.Start, link, byteStart)
			}
			if got, want := r.Doc.Claims[0].Text, "Über 90 % der Fälle ≈ gelöst"; got != want {
				t.Errorf("claim %q, want %q", got, want)
			}
		})
	}
}

func TestMarkerClaim(t *testing.T) {
	tests := []struct {
		text, marker, want string
	}{
		{"First point. Second point [1]. Third.", "[1]", "Second point"},
		{"Smith et al. found a drop [2].", "[2]", "Smith et al. found a drop"},
		{"Intro line\n- Bullet claim here [3]", "[3]", "Bullet claim here"},
		{"Done. [4] Next sentence follows.", "[4]", "Done."},
		{"[5] Leading marker sentence. More.", "[5]", "Leading marker sentence."},
		{"前一句。这是中文的说法[6]。", "[6]", "这是中文的说法"},
	}
	for _, tt := range tests {
		ms := strings.Index(tt.text, tt.marker)
		s, e := markerClaim(tt.text, ms, ms+len(tt.marker), 0)
		if got := tt.text[s:e]; got != tt.want {
			t.Errorf("markerClaim(%q, %s) = %q, want %q", tt.text, tt.marker, got, tt.want)
		}
	}
}

func TestGeminiErrors(t *testing.T) {
	base := func(support string, chunks string) []byte {
		return []byte(`{"candidates": [{"content": {"parts": [{"text": "Alpha beta. Gamma delta."}]},
			"groundingMetadata": {"groundingChunks": ` + chunks + `, "groundingSupports": [` + support + `]}}]}`)
	}
	web := `[{"web": {"uri": "https://a.example", "title": "a"}}]`
	tests := []struct {
		name, support, chunks, wantErr string
		wantClaim                      string
	}{
		{"offsets right", `{"segment": {"startIndex": 12, "endIndex": 24, "text": "Gamma delta."}, "groundingChunkIndices": [0]}`, web, "", "Gamma delta."},
		{"offsets wrong, text found", `{"segment": {"startIndex": 3, "endIndex": 9, "text": "Gamma delta."}, "groundingChunkIndices": [0]}`, web, "", "Gamma delta."},
		{"start absent means 0", `{"segment": {"endIndex": 11, "text": "Alpha beta."}, "groundingChunkIndices": [0]}`, web, "", "Alpha beta."},
		{"segment not in text", `{"segment": {"startIndex": 3, "endIndex": 99, "text": "Omega."}, "groundingChunkIndices": [0]}`, web, "not in part", ""},
		{"chunk out of range", `{"segment": {"endIndex": 11, "text": "Alpha beta."}, "groundingChunkIndices": [3]}`, web, "chunk 3 of 1", ""},
		{"part out of range", `{"segment": {"partIndex": 2, "endIndex": 11}, "groundingChunkIndices": [0]}`, web, "part 2 of 1", ""},
		{"confidence above 1", `{"segment": {"endIndex": 11}, "groundingChunkIndices": [0], "confidenceScores": [1.7]}`, web, "confidence 1.7", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Gemini(base(tt.support, tt.chunks))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, claimtrace.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			check(t, r)
			if len(r.Doc.Claims) != 1 || r.Doc.Claims[0].Text != tt.wantClaim {
				t.Errorf("claims %+v, want %q", r.Doc.Claims, tt.wantClaim)
			}
		})
	}
}

func TestPerplexitySkipsLinks(t *testing.T) {
	data := []byte(`{"model": "sonar", "choices": [{"message": {"content": "See [1](https://x.org) for more. Cited claim [1].\n[1]: https://x.org"}}],
		"citations": ["https://x.org"]}`)
	r, err := Perplexity(data)
	if err != nil {
		t.Fatal(err)
	}
	check(t, r)
	want := []claimCites{{"Cited claim", []string{"https://x.org"}}}
	if diff := cmp.Diff(want, summarize(r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestImportErrors(t *testing.T) {
	tests := []struct{ provider, data, want string }{
		{"openai", `{"output": []}`, "no output_text and no choices"},
		{"openai", `[1]`, "openai response"},
		{"gemini", `{"candidates": []}`, "no candidates"},
		{"anthropic", `{"type": "error", "error": {"type": "overloaded_error"}}`, `type "error"`},
		{"anthropic", `{"content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "cited_text": "y"}]}]}`, "no url, source or document"},
		{"perplexity", `{"choices": []}`, "no choices"},
		{"mistral", `{}`, `provider "mistral"`},
	}
	for _, tt := range tests {
		_, err := Import(tt.provider, []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("%s %s: err = %v, want ErrInvalid containing %q", tt.provider, tt.data, err, tt.want)
		}
	}
}

func TestCleanURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://ex.org/p?utm_source=openai", "https://ex.org/p"},
		{"https://ex.org/p?a=1&utm_source=chatgpt.com", "https://ex.org/p?a=1"},
		{"https://ex.org/p?utm_source=newsletter", "https://ex.org/p?utm_source=newsletter"},
		{"https://ex.org/p", "https://ex.org/p"},
	} {
		if got := cleanURL(tt.in); got != tt.want {
			t.Errorf("cleanURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestImportedGraphScores: an imported graph is honest about what was not
// verified: no source is resolved, so no claim has complete provenance.
func TestImportedGraphScores(t *testing.T) {
	r, err := Gemini(read(t, "gemini.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := prov.Compute(r.Graph, prov.DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if m.PCov != (prov.Ratio{Num: 0, Den: 3}) {
		t.Errorf("PCov = %v, want 0/3", m.PCov)
	}
	// Confidence 0.97, 0.81 and 0.64 are above τ; the unscored pair is not.
	if m.PSnd != (prov.Ratio{Num: 3, Den: 4}) {
		t.Errorf("PSnd = %+v, want 3/4", m.PSnd)
	}
}

func fuzzImport(f *testing.F, fn func([]byte) (*Result, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(read(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := fn(data)
		if err != nil {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		check(t, r)
	})
}

func FuzzOpenAI(f *testing.F) { fuzzImport(f, OpenAI, "openai-responses.json", "openai-chat.json") }
func FuzzGemini(f *testing.F) { fuzzImport(f, Gemini, "gemini.json") }
func FuzzAnthropic(f *testing.F) {
	fuzzImport(f, Anthropic, "anthropic.json")
}
func FuzzPerplexity(f *testing.F) {
	fuzzImport(f, Perplexity, "perplexity.json", "perplexity-citations.json")
}
