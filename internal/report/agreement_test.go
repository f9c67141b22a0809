package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// readCSV returns the rows of a CSV file as maps keyed by header.
func readCSV(tb testing.TB, path string) []map[string]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out
}

// TestMassgenTitleArXivAgreement measures, on the DeepScholar multi-agent
// reports, how often a reference's title alone finds the same paper as its
// arXiv id. The papers known by id and title are DeepScholar-Bench's
// resolved citations (arXiv titles) and the systems' retrieved papers
// (paper.csv); the reports' titles are written by a model, with typos,
// variants and hallucinations.
func TestMassgenTitleArXivAgreement(t *testing.T) {
	ds := sharedtest.Dir(t, "reports/deepscholar-bench")
	mg := sharedtest.Dir(t, "reports/deepscholar-massgen/outputs/results_minimax")
	var refs []claimtrace.Reference
	seen := map[string]bool{}
	addRef := func(id, title string) {
		id = biblio.ArXivID(id)
		if id == "" || title == "" || seen[id] {
			return
		}
		seen[id] = true
		refs = append(refs, claimtrace.Reference{BibID: id, Title: title, Meta: map[string]string{"eprint": id}})
	}
	for _, r := range readCSV(t, filepath.Join(ds, "dataset", "citations.csv")) {
		addRef(r["cited_paper_arxiv_link"], r["cited_paper_title"])
	}
	papers, _ := filepath.Glob(filepath.Join(ds, "tests", "baselines_results", "*", "*", "paper.csv"))
	more, _ := filepath.Glob(filepath.Join(mg, "*", "paper.csv"))
	for _, p := range append(papers, more...) {
		for _, r := range readCSV(t, p) {
			addRef(r["id"], r["title"])
		}
	}
	ix := biblio.NewIndex(refs)

	reports, _ := filepath.Glob(filepath.Join(mg, "*", "final_report.md"))
	var entries, withBoth, known, agree, fuzzy, wrong, miss, unknownButTitled int
	for _, f := range reports {
		text, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Parse(text).Citations {
			if c.Kind != claimtrace.KindListEntry {
				continue
			}
			entries++
			if c.Title == "" || c.ArXivID == "" {
				continue
			}
			withBoth++
			byID, okID := ix.Match(claimtrace.Work{ArXivID: c.ArXivID})
			byTitle, okTitle := ix.Match(claimtrace.Work{Title: c.Title})
			switch {
			case !okID && okTitle:
				unknownButTitled++ // the title names a known paper, the id another
			case !okID:
			case !okTitle:
				known++
				miss++
				if testing.Verbose() {
					t.Logf("no title match: %q (id %s is %q)", c.Title, byID.BibID, refs[byID.Ref].Title)
				}
			case byTitle.Ref == byID.Ref:
				known++
				agree++
				if byTitle.Method == biblio.MethodFuzzyTitle {
					fuzzy++
				}
			default:
				known++
				wrong++
				t.Logf("title %q matched %s, its id %s", c.Title, byTitle.BibID, byID.BibID)
			}
		}
	}
	if known < 50 {
		t.Fatalf("only %d entries with a known arXiv id; data changed?", known)
	}
	t.Logf("massgen: %d list entries, %d with title and arXiv id; %d ids known (%d papers indexed): title finds the same paper %d (%.3f; %d fuzzily), another paper %d, none %d; %d entries whose id is unknown but whose title names a known paper",
		entries, withBoth, known, len(refs), agree, float64(agree)/float64(known), fuzzy, wrong, miss, unknownButTitled)
	if wrong*50 > known {
		t.Errorf("title matching picked a different paper for %d of %d entries (over 2%%)", wrong, known)
	}
}
