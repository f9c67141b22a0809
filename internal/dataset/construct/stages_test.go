package construct_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

func paper(title, abstract, cats string) construct.Paper {
	return construct.Paper{ID: "2101.00001", Title: title, Abstract: abstract, Categories: cats}
}

func TestRuleClassifier(t *testing.T) {
	c := construct.NewRuleClassifier()
	tests := []struct {
		title, abstract string
		want            bool
	}{
		{"Graph Neural Networks: A Survey", "In this survey, we review recent advances and propose a taxonomy of existing methods.", true},
		{"A Systematic Literature Review of Blockchain-Based Process Execution", "We follow PRISMA and analyse 54 studies.", true},
		{"Deep Learning for Android Malware Defenses: a Systematic Literature Review", "This paper reviews the literature.", true},
		{"Recent Advances in Radar Perception", "We survey radar representations and discuss open challenges and future directions.", true},
		{"The DESI Legacy Imaging Survey: Data Release 9", "We present photometric survey data for 20,000 square degrees from the SDSS footprint.", false},
		{"A Redshift Survey of Galaxy Clusters", "We measure 3,000 spectra with the survey telescope.", false},
		{"How Developers Debug: A Survey of 500 Practitioners", "We conducted an online survey with 500 respondents and interviewed 20.", false},
		{"Automated Code Review with Transformers", "Code reviews are expensive; we generate review comments automatically.", false},
		{"Reviewer Assignment for Conferences", "We match papers to reviewers in the peer review process.", false},
		{"Attention Is All You Need", "We propose the Transformer, a new architecture.", false},
	}
	for _, tt := range tests {
		d, err := c.Classify(context.Background(), paper(tt.title, tt.abstract, "cs.LG"))
		if err != nil {
			t.Fatal(err)
		}
		if d.Survey != tt.want || len(d.Why) == 0 && tt.want {
			t.Errorf("%q: survey=%v (score %d, %v), want %v", tt.title, d.Survey, d.Score, d.Why, tt.want)
		}
	}
}

// TestRuleClassifierReleased measures the offline classifier on the 100
// released surveys (all positives) and on the 200 records of the snapshot
// sample (2007 papers, a few of them reviews).
func TestRuleClassifierReleased(t *testing.T) {
	root := sharedtest.Root()
	if root == "" {
		t.Skip("shared data not found")
	}
	c := construct.NewRuleClassifier()
	count := func(path string) (yes, n int) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			p, err := construct.ParsePaper(sc.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			d, _ := c.Classify(context.Background(), p)
			n++
			if d.Survey {
				yes++
			}
		}
		return yes, n
	}
	yes, n := count(filepath.Join(root, "reportbench-v1.1", construct.TaskFile))
	if yes < 98 {
		t.Errorf("released surveys classified as surveys: %d of %d, want at least 98", yes, n)
	}
	fp, m := count(filepath.Join(root, "arxiv/snapshot-sample/arxiv-metadata-oai-snapshot.json"))
	if fp > 4 {
		t.Errorf("snapshot sample classified as surveys: %d of %d, want at most 4", fp, m)
	}
	t.Logf("released: %d/%d surveys; snapshot sample: %d/%d surveys", yes, n, fp, m)
}

func TestCategoryDomains(t *testing.T) {
	d := construct.NewCategoryDomains()
	tests := []struct {
		title, abstract, cats, want string
	}{
		{"Exploring Radar Data Representations in Autonomous Driving: A Review", "radar sensors for vehicles", "cs.CV cs.AI", construct.DomainTransport},
		{"Deep Learning for Medical Image Segmentation: A Survey", "clinical images of patients", "eess.IV cs.CV", construct.DomainHealth},
		{"Machine Learning for Stock Market Prediction: A Review", "financial markets and trading", "q-fin.ST cs.LG", construct.DomainFinance},
		{"A Survey on Smart Grid Energy Forecasting", "renewable energy and power systems", "eess.SY", construct.DomainEnergy},
		{"Graph Neural Networks: A Review", "message passing", "cs.LG", construct.DomainAI},
		{"Dark Matter Halos: A Review", "cosmological simulations", "astro-ph.CO", construct.DomainBasic},
		{"A Survey of 6G Wireless Networks", "network slicing", "cs.NI", construct.DomainICT},
		{"Music Generation with Deep Learning: A Survey", "symbolic music and audio", "cs.SD", construct.DomainCulture},
		{"Fake News Detection: A Survey", "misinformation on social platforms", "cs.CL", construct.DomainSafety},
		{"Predictive Maintenance in Industry 4.0: A Review", "manufacturing plants", "cs.LG", construct.DomainMaking},
		{"Something Else", "nothing recognisable", "", construct.DomainUnknown},
	}
	for _, tt := range tests {
		got, err := d.Domain(context.Background(), paper(tt.title, tt.abstract, tt.cats))
		if err != nil {
			t.Fatal(err)
		}
		if got.Domain != tt.want {
			t.Errorf("%q: %s (%v), want %s", tt.title, got.Domain, got.Why, tt.want)
		}
	}
}

// TestCategoryDomainsReleased measures agreement with the released labels
// (made by Gemini 2.5 Pro). The rules were adjusted looking only at the
// first 50 tasks; the figure that counts is the other 50.
func TestCategoryDomainsReleased(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "reportbench-v1.1"), construct.TaskFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := construct.NewCategoryDomains()
	var agree [2]int
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		p, err := construct.ParsePaper(line)
		if err != nil {
			t.Fatal(err)
		}
		var x struct {
			Domain string `json:"application_domain"`
		}
		if err := json.Unmarshal(line, &x); err != nil {
			t.Fatalf("decode: %v", err)
		}
		got, _ := d.Domain(context.Background(), p)
		if got.Domain == x.Domain {
			agree[i/50]++
		}
	}
	t.Logf("agreement with the released domains: %d/50 on the calibration half, %d/50 held out (chance ≈ 5/50)", agree[0], agree[1])
	if agree[1] < 15 {
		t.Errorf("held-out agreement %d/50, want at least 15", agree[1])
	}
}

func TestTopic(t *testing.T) {
	for title, want := range map[string]string{
		"A Survey on Small-Scale Testbeds for Connected and Automated Vehicles":                             "small-scale testbeds for connected and automated vehicles",
		"Exploring Radar Data Representations in Autonomous Driving: A Comprehensive Review":                "exploring radar data representations in autonomous driving",
		"Graph Neural Networks for Text Classification: A Survey":                                           "graph neural networks for text classification",
		"LiDAR Panoptic Segmentation: A Technical Survey":                                                   "LiDAR panoptic segmentation",
		"A Systematic Literature Review of Computer Vision Applications in Robotized Wire Harness Assembly": "computer vision applications in robotized wire harness assembly",
		"Affective Image Content Analysis: Two Decades Review and New Perspectives":                         "affective image content analysis",
		"STPA for Learning-Enabled Systems: A Survey and A New Practice":                                    "STPA for learning-enabled systems",
		"Event-based vision on FPGAs -- a survey":                                                           "event-based vision on FPGAs",
		"Survey": "survey",
	} {
		if got := construct.Topic(title); got != want {
			t.Errorf("Topic(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestTemplatePrompter(t *testing.T) {
	p := construct.Paper{
		ID:       "2312.04861",
		Title:    "Exploring Radar Data Representations in Autonomous Driving: A Comprehensive Review",
		Abstract: "This review focuses on exploring different radar data representations. Then, we delve into five radar representations, including the ADC signal, radar tensor, point cloud, grid map, and micro-Doppler signature. We discuss the challenges.",
		Versions: []claimtrace.Version{{Version: "v1", Created: "Fri, 8 Dec 2023 06:31:19 GMT"}, {Version: "v3", Created: "Mon, 21 Apr 2025 08:37:24 GMT"}},
	}
	set, err := construct.TemplatePrompter{}.Prompts(context.Background(), p, "")
	if err != nil {
		t.Fatal(err)
	}
	if set.Cutoff != "April 2025" {
		t.Errorf("cutoff %q, want April 2025 (the last version)", set.Cutoff)
	}
	for _, level := range construct.Levels {
		if !strings.Contains(set.Level(level), "before April 2025") && !strings.Contains(set.Level(level), "before **April 2025**") {
			t.Errorf("%s prompt lacks the cutoff: %q", level, set.Level(level))
		}
		if strings.Contains(set.Level(level), p.Title) {
			t.Errorf("%s prompt names the survey itself", level)
		}
	}
	if !strings.Contains(set.Rules, "Do not refer to the survey titled ``"+p.Title+"``.") ||
		!strings.Contains(set.Rules, "English language survey with citations") {
		t.Errorf("rules block: %q", set.Rules)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(set)
	golden(t, "prompts.golden.json", out.Bytes())

	if _, err := (construct.TemplatePrompter{}).Prompts(context.Background(), construct.Paper{ID: "x", Title: "T"}, ""); err == nil {
		t.Error("a paper without versions has no cutoff: want an error")
	}
}

// fakeCompleter answers CompleteJSON from a function and records prompts.
type fakeCompleter struct {
	answer  func(stage, prompt string) (string, error)
	prompts []string
}

func (f *fakeCompleter) CompleteJSON(_ context.Context, stage, prompt string, out any) error {
	f.prompts = append(f.prompts, prompt)
	ans, err := f.answer(stage, prompt)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(ans), out)
}

func TestLLMStages(t *testing.T) {
	p := construct.Paper{ID: "2101.00001", Title: "A Survey of X", Abstract: "We review X.",
		Versions: []claimtrace.Version{{Version: "v1", Created: "Fri, 1 Jan 2021 00:00:00 GMT"}}}
	fc := &fakeCompleter{answer: func(stage, _ string) (string, error) {
		switch stage {
		case "build.classify":
			return `{"survey": true, "reason": "reviews prior work"}`, nil
		case "build.domains":
			return `{"domain": "C. Artificial Intelligence and Data Intelligence", "reason": "ML"}`, nil
		case "build.prompts":
			return `{"sentence": "Research X before January 2021.", "paragraph": "Review X.", "detail": "Detail X before January 2021."}`, nil
		}
		return "", errors.New("unexpected stage")
	}}
	ctx := context.Background()
	d, err := (&construct.LLMClassifier{Completer: fc}).Classify(ctx, p)
	if err != nil || !d.Survey || d.By != "llm" {
		t.Errorf("Classify = %+v, %v", d, err)
	}
	dom, err := (&construct.LLMDomains{Completer: fc}).Domain(ctx, p)
	if err != nil || dom.Domain != construct.DomainAI {
		t.Errorf("Domain = %+v, %v", dom, err)
	}
	set, err := (&construct.LLMPrompter{Completer: fc}).Prompts(ctx, p, strings.Repeat("é", 30000))
	if err != nil {
		t.Fatal(err)
	}
	if set.Paragraph != "Review X. Ensure only papers published before January 2021 are referenced." {
		t.Errorf("a prompt without the cutoff gets it appended: %q", set.Paragraph)
	}
	if last := fc.prompts[len(fc.prompts)-1]; !strings.Contains(last, "Ensure only papers published before January 2021") || len(last) > 30000 {
		t.Errorf("prompts prompt: %d bytes, cutoff present: %v", len(last), strings.Contains(last, "January 2021"))
	}

	bad := &fakeCompleter{answer: func(stage, _ string) (string, error) {
		switch stage {
		case "build.classify":
			return `{"reason": "no verdict"}`, nil
		case "build.domains":
			return `{"domain": "Astrology"}`, nil
		}
		return `{"sentence": "only one"}`, nil
	}}
	if _, err := (&construct.LLMClassifier{Completer: bad}).Classify(ctx, p); err == nil {
		t.Error("an answer without a verdict should fail")
	}
	if _, err := (&construct.LLMDomains{Completer: bad}).Domain(ctx, p); err == nil {
		t.Error("a domain outside the list should fail")
	}
	if _, err := (&construct.LLMPrompter{Completer: bad}).Prompts(ctx, p, ""); err == nil {
		t.Error("missing prompt levels should fail")
	}
}

func TestSample(t *testing.T) {
	var cands []construct.Candidate
	for i, d := range construct.Domains {
		for j := range 5 + 3*i {
			cands = append(cands, construct.Candidate{ID: fmt.Sprintf("%02d.%03d", i, j), Domain: d})
		}
	}
	cands = append(cands, construct.Candidate{ID: "unknown.1", Domain: construct.DomainUnknown})
	picks := construct.Sample(cands, 10, 42)
	again := construct.Sample(cands, 10, 42)
	if diff := cmp.Diff(picks, again); diff != "" {
		t.Fatalf("Sample is not deterministic:\n%s", diff)
	}
	other := construct.Sample(cands, 10, 43)
	if cmp.Equal(picks, other) {
		t.Error("seeds 42 and 43 draw the same sample")
	}
	perDomain := map[string]int{}
	levels := map[string]int{}
	seen := map[string]bool{}
	for _, p := range picks {
		perDomain[p.Domain]++
		levels[p.Level]++
		if seen[p.ID] {
			t.Errorf("%s drawn twice", p.ID)
		}
		seen[p.ID] = true
		if !strings.HasPrefix(p.ID, fmt.Sprintf("%02d.", indexOf(construct.Domains, p.Domain))) {
			t.Errorf("%s drawn for the wrong domain %s", p.ID, p.Domain)
		}
	}
	for i, d := range construct.Domains {
		want := min(10, 5+3*i)
		if perDomain[d] != want {
			t.Errorf("%s: %d drawn, want %d", d, perDomain[d], want)
		}
	}
	if perDomain[construct.DomainUnknown] != 0 {
		t.Error("Unknown Category must not be sampled")
	}
	if len(levels) != 3 {
		t.Errorf("levels drawn: %v, want all three", levels)
	}
	// The draw is a documented algorithm (PCG(42, 0), Shuffle per domain,
	// IntN(3) per pick): pin its first picks so that a change is noticed.
	var head []string
	for _, p := range picks[:3] {
		head = append(head, p.ID+"/"+p.Level)
	}
	golden(t, "sample.golden.txt", []byte(strings.Join(head, "\n")+"\n"))
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func TestJournalTornLine(t *testing.T) {
	dir := t.TempDir()
	b := &construct.Builder{Dir: dir, Now: func() time.Time { return time.Unix(0, 0) }}
	// A select output and a classify journal whose last line was cut by a
	// crash.
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	recs := `{"id":"2101.00001","title":"A Survey of X","abstract":"In this survey we review X.","versions":[{"version":"v1","created":"Fri, 1 Jan 2021 00:00:00 GMT"}]}
{"id":"2101.00002","title":"A Review of Y","abstract":"We review Y and its literature.","versions":[{"version":"v1","created":"Fri, 1 Jan 2021 00:00:00 GMT"}]}
`
	os.WriteFile(filepath.Join(dir, "build", "select.jsonl"), []byte(recs), 0o644)
	os.WriteFile(filepath.Join(dir, "build", "classify.jsonl"), []byte(`{"id":"2101.00001","survey":true,"score":4,"why":["x"],"by":"rules"}`+"\n"+`{"id":"2101.000`), 0o644)
	rep, err := b.Classify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Manifest.Counts["survey"] != 2 || !rep.Manifest.Complete {
		t.Errorf("manifest %+v", rep.Manifest)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "build", "classify.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || strings.Contains(string(data), `"2101.000`+"\n") {
		t.Errorf("journal after repair:\n%s", data)
	}
}
