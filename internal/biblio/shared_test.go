package biblio

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// loadGT reads every ReportBench ground-truth file, keyed by file name.
func loadGT(tb testing.TB) map[string][]claimtrace.Reference {
	tb.Helper()
	dir := sharedtest.Dir(tb, "reportbench-v1.1/ReportBench_v1.1_GT")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no GT files in %s: %v", dir, err)
	}
	out := map[string][]claimtrace.Reference{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var r claimtrace.Reference
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			out[filepath.Base(f)] = append(out[filepath.Base(f)], r)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
	}
	return out
}

// TestGTSelfMatch checks that every ground-truth title, given alone, matches
// its own reference (or the representative of its duplicate group).
func TestGTSelfMatch(t *testing.T) {
	gt := loadGT(t)
	var refs, empty, ided, distinct int
	for name, rs := range gt {
		ix := NewIndex(rs)
		distinct += ix.Distinct()
		for i, r := range rs {
			refs++
			if TitleKey(r.Title) == "" {
				empty++
				continue
			}
			m, ok := ix.Match(claimtrace.Work{Title: r.Title})
			if !ok {
				t.Errorf("%s: ref %d %q does not match its own title", name, i, r.Title)
				continue
			}
			if m.Ref != ix.rep[i] {
				t.Errorf("%s: ref %d %q matched ref %d %q, want group %d", name, i, r.Title, m.Ref, rs[m.Ref].Title, ix.rep[i])
			}
			if m.Method != MethodTitle {
				t.Errorf("%s: ref %d matched by %s, want exact title", name, i, m.Method)
			}
			if ids := referenceIDs(r); ids.arxiv != "" || ids.doi != "" {
				ided++
			}
		}
	}
	if refs != 16204 {
		t.Errorf("GT has %d references, want 16204", refs)
	}
	t.Logf("%d GT references in %d files, %d distinct (same title key, arXiv id or DOI within a survey); %d with an empty title; %d with an arXiv id or DOI in meta_info", refs, len(gt), distinct, empty, ided)
}

// TestGTContainedTitlesDoNotFuzzyMatch checks, over all GT titles pooled,
// that a title which contains another GT title (as words) is never matched
// to that shorter title.
func TestGTContainedTitlesDoNotFuzzyMatch(t *testing.T) {
	gt := loadGT(t)
	norm := map[string]string{} // normalized title → a raw title
	for _, rs := range gt {
		for _, r := range rs {
			if n := NormalizeTitle(r.Title); n != "" {
				norm[n] = r.Title
			}
		}
	}
	titles := make([]string, 0, len(norm))
	for n := range norm {
		titles = append(titles, n)
	}
	sort.Strings(titles)
	byWord := map[string][]string{}
	for _, n := range titles {
		seen := map[string]bool{}
		for _, w := range strings.Fields(n) {
			if !seen[w] {
				seen[w] = true
				byWord[w] = append(byWord[w], n)
			}
		}
	}
	contained := map[string]bool{}
	containers := map[string][]string{}
	for _, short := range titles {
		ws := strings.Fields(short)
		if len(ws) < 2 {
			continue
		}
		rare := ws[0]
		for _, w := range ws {
			if len(byWord[w]) < len(byWord[rare]) {
				rare = w
			}
		}
		for _, long := range byWord[rare] {
			if long != short && strings.Contains(" "+long+" ", " "+short+" ") {
				contained[short] = true
				containers[long] = append(containers[long], short)
			}
		}
	}
	var refs []claimtrace.Reference
	for _, n := range titles {
		if contained[n] {
			refs = append(refs, claimtrace.Reference{BibID: n, Title: norm[n]})
		}
	}
	ix := NewIndex(refs)
	pairs := 0
	for long, shorts := range containers {
		pairs += len(shorts)
		m, ok := ix.Match(claimtrace.Work{Title: norm[long]})
		if !ok {
			continue
		}
		if m.BibID != long {
			t.Errorf("%q matched the GT title it contains, %q (%s, %.3f)", long, m.BibID, m.Method, m.Score)
		}
	}
	if pairs < 1000 {
		t.Errorf("only %d containment pairs found; the GT should hold about 1,900", pairs)
	}
	t.Logf("%d (container, contained) title pairs checked", pairs)
}

// TestDeepScholarURLArXivAgreement measures how often the arXiv id read from
// a citation's bibliography URL or DOI agrees with the arXiv paper
// DeepScholar-Bench resolved the citation to by title search.
func TestDeepScholarURLArXivAgreement(t *testing.T) {
	dir := sharedtest.Dir(t, "reports/deepscholar-bench/dataset")
	f, err := os.Open(filepath.Join(dir, "citations.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("citations.csv: %v", err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var linked, withID, agree, idNotLinked int
	var disagreements []string
	for _, r := range rows[1:] {
		theirs := ArXivID(r[col["cited_paper_arxiv_link"]])
		ours := ArXivID(r[col["bib_paper_url"]])
		if ours == "" {
			ours = ArXivID(r[col["bib_paper_doi"]])
		}
		if theirs != "" {
			linked++
		}
		switch {
		case ours != "" && theirs != "":
			withID++
			if ours == theirs {
				agree++
			} else {
				disagreements = append(disagreements, ours+" vs "+theirs)
			}
		case ours != "" && theirs == "":
			idNotLinked++
		}
	}
	if linked < 900 || withID < 50 {
		t.Fatalf("unexpected data: %d rows with an arXiv link, %d with an id in url/doi", linked, withID)
	}
	rate := float64(agree) / float64(withID)
	t.Logf("citations.csv: %d rows; %d resolved to arXiv by title; %d of them carry an arXiv id in their bib url/doi; agreement %d/%d = %.3f; %d more rows have an arXiv id in url/doi but no arXiv link",
		len(rows)-1, linked, withID, agree, withID, rate, idNotLinked)
	if len(disagreements) > 0 {
		t.Logf("disagreements (url/doi id vs title-resolved id): %v", disagreements)
	}
	if rate < 0.9 {
		t.Errorf("url/doi→arXiv agreement %.3f below 0.9", rate)
	}
}
