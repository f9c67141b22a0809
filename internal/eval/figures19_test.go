package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/dataset"
)

// issue19Walls are the walled pages of issue 19's first scenario as a
// snapshot holds them: what ten live hosts answered.
var issue19Walls = []snapPage{
	{"https://fab-cf.example/papers/1", 403, `<html><head><title>Just a moment...</title></head><body><h1>Checking your browser before accessing the site.</h1><script>window._cf_chl_opt={}</script></body></html>`, ""},
	{"https://fab-login.example/papers/2", 401, `<html><head><title>401 Unauthorized</title></head><body><p>Please sign in.</p></body></html>`, ""},
	{"https://fab-ratelimit.example/papers/3", 429, `<html><body><p>Too Many Requests</p></body></html>`, ""},
	{"https://fab-overloaded.example/papers/4", 503, `<html><body><p>Service Unavailable</p></body></html>`, ""},
	{"https://fab-empty.example/papers/5", 403, " ", ""},
	{"https://fab-shell.example/papers/6", 200, `<html><head><title>Loading…</title><script src="/bundle.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`, ""},
	{"https://fab-akamai.example/papers/7", 403, `<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>You don't have permission to access this page.</p></body></html>`, ""},
	{"https://fab-legal.example/papers/8", 451, `<html><body><p>Unavailable For Legal Reasons</p></body></html>`, ""},
	{"https://fab-captcha.example/papers/9", 200, `<html><head><title>Are you a robot?</title></head><body><p>Please verify you are human to continue.</p><div class="g-recaptcha"></div></body></html>`, ""},
	{"https://fab-payment.example/papers/10", 402, `<html><body><p>Payment Required</p></body></html>`, ""},
}

// issue19Reports are the issue's scenarios, one report each, over
// gamingGT: two ground-truth papers alone; with ten walls; with the same
// ten paths dead (404); ten walls alone; a paywalled page whose
// citation_title is a ground-truth paper cited under another paper's
// title; a made-up DOI in a publisher path behind a wall.
func issue19Reports() (map[string]string, []snapPage) {
	pages := []snapPage{gtPaperPage, secondGTPage,
		{"https://journals.example.org/article/9", 200, `<html><head><title>Dense Widget Retrieval | Journal of Widgets</title><meta name="citation_title" content="Dense Widget Retrieval"><meta name="citation_journal_title" content="Journal of Widgets"></head><body><h1>Dense Widget Retrieval</h1><p>Subscribe to read the full article. Purchase access for $39.95.</p></body></html>`, ""},
		{"https://fab-cf.example/doi/10.5555/made.up.77", 403, `<html><head><title>Just a moment...</title></head><body><p>Checking your browser.</p></body></html>`, ""},
	}
	pages = append(pages, issue19Walls...)
	var walls, dead []string
	for _, p := range issue19Walls {
		walls = append(walls, p.url)
		d := strings.Replace(p.url, "https://fab-", "https://gone-", 1)
		dead = append(dead, d)
		pages = append(pages, snapPage{d, 404, "", ""})
	}
	return map[string]string{
		"2401.00001": citing(true),
		"2401.00002": citing(true, walls...),
		"2401.00003": citing(true, dead...),
		"2401.00004": citing(false, walls...),
		"2401.00005": "# Widgets\n\nRadar hallucinates widgets [1].\n\n## References\n\n[1] Wang, L. Deep radar hallucination networks for widget scenes. Radar Letters, 2023. https://journals.example.org/article/9\n",
		"2401.00006": "# Widgets\n\nGear trains speed assembly up [1].\n\n## References\n\n[1] https://fab-cf.example/doi/10.5555/made.up.77\n",
	}, pages
}

// TestIssue19Scenarios scores the issue's scenarios offline from a
// snapshot. With CLAIMTRACE_WRITE_FIXTURE=DIR it also writes them as a
// dataset, reports and snapshot under DIR, for the command line (the
// before/after figures of docs/scoring.md):
//
//	claimtrace eval --dataset DIR/ds --reports DIR/reports --snapshot DIR/snap --offline --out OUT
func TestIssue19Scenarios(t *testing.T) {
	reports, pages := issue19Reports()
	if dir := os.Getenv("CLAIMTRACE_WRITE_FIXTURE"); dir != "" {
		writeIssue19Fixture(t, dir, reports, pages)
	}
	res, sum := runFixture(t, gamingGT, reports, pages)
	for _, tt := range []struct {
		id                 string
		strict, verifiable any
		flagged            bool
	}{
		{"2401.00001", 1.0, 1.0, false},
		{"2401.00002", 2.0 / 12, 1.0, true},
		{"2401.00003", 2.0 / 12, 2.0 / 12, false},
		{"2401.00004", 0.0, nil, true},
		{"2401.00005", 0.0, 0.0, false},
		{"2401.00006", 0.0, 0.0, false},
	} {
		c := res[tt.id].Citation
		if deref(c.Precision) != tt.strict || deref(c.PrecisionVerifiable) != tt.verifiable || c.Flagged != tt.flagged {
			t.Errorf("%s: strict %v, verifiable %v, flagged %v; want %v, %v, %v", tt.id, deref(c.Precision), deref(c.PrecisionVerifiable), c.Flagged, tt.strict, tt.verifiable, tt.flagged)
		}
	}
	if c := res["2401.00005"].Citation; c.Misattributed != 1 || c.GTHits != 0 {
		t.Errorf("misattributed scenario: %+v", c)
	}
	if a := res["2401.00006"].AAR; deref(a.PCov) != 0.0 {
		t.Errorf("a made-up DOI behind a wall: PCov %v, want 0", deref(a.PCov))
	}
	if sum.Citation.ReportsWithoutRefs != 0 {
		t.Errorf("%d reports without references, want 0", sum.Citation.ReportsWithoutRefs)
	}
}

// writeIssue19Fixture writes the scenarios as the command line reads them.
func writeIssue19Fixture(t *testing.T, dir string, reports map[string]string, pages []snapPage) {
	t.Helper()
	for _, d := range []string{filepath.Join(dir, "ds", dataset.GTDir), filepath.Join(dir, "reports")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var tasks strings.Builder
	for id, text := range reports {
		fmt.Fprintf(&tasks, `{"arxiv_id":%q,"title":"A Survey of Widgets","prompt":"Survey widgets; cite work before June 2024."}`+"\n", id)
		os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(gamingGT), 0o644)
		os.WriteFile(filepath.Join(dir, "reports", id+".md"), []byte(text), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	writeSnapshot(t, filepath.Join(dir, "snap"), pages)
	t.Logf("wrote the issue 19 fixture under %s", dir)
}
