package arxivsnap_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// genRecord makes one realistic snapshot line. About a third of the
// records pass the default filter; which ones is decided by the same
// random draws, and want reports it, so tests know the expected output
// without running the filter under test.
func genRecord(rng *rand.Rand, i int) (line []byte, want bool) {
	year := 2007 + rng.IntN(19)
	month := 1 + rng.IntN(12)
	id := fmt.Sprintf("%02d%02d.%05d", year%100, month, i%100000)
	titles := []string{
		"Deep Learning for %s: A Survey", "A Review of %s Methods", "On the Structure of %s",
		"Sky Survey Photometry of %s", "Learning %s with Transformers", "%s: A Systematic Literature Review",
	}
	topics := []string{"Graph Neural Networks", "Quantum Error Correction", "Radar Perception",
		"Protein Folding", "Code Search", "Galaxy Clusters", "Federated Learning", "Traffic Forecasting"}
	title := fmt.Sprintf(titles[rng.IntN(len(titles))], topics[rng.IntN(len(topics))])
	if rng.IntN(4) == 0 {
		title = strings.Replace(title, " ", "\n  ", 1) // the snapshot wraps long titles
	}
	comments := []any{nil, "12 pages, 3 figures", "Accepted by IEEE TITS", "Published in ACM Computing Surveys",
		"Under review", "Submitted for publishing", "accepted at ICLR 2024; code at https://x.org/y"}[rng.IntN(7)]
	licenses := []any{nil, "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
		"http://creativecommons.org/licenses/by/4.0/", "http://creativecommons.org/licenses/by-nc-sa/4.0/",
		"http://creativecommons.org/publicdomain/zero/1.0/"}
	license := licenses[rng.IntN(len(licenses))]
	cats := []string{"cs.CV cs.AI", "astro-ph.GA", "cs.CL", "quant-ph", "cs.LG stat.ML", "eess.SP cs.IT"}[rng.IntN(6)]
	created := fmt.Sprintf("%s, %d %s %d 10:%02d:00 GMT", []string{"Mon", "Tue", "Wed"}[rng.IntN(3)],
		1+rng.IntN(28), []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}[month-1],
		year, rng.IntN(60))
	versions := []map[string]string{{"version": "v1", "created": created}}
	if rng.IntN(2) == 0 {
		versions = append(versions, map[string]string{"version": "v2", "created": "Fri, 19 Apr 2024 08:55:34 GMT"})
	}
	abstract := strings.Repeat("  We study "+topics[rng.IntN(len(topics))]+" with \"quotes\", é, \\LaTeX and $x^2$.\n", 5+rng.IntN(15))
	rec := struct {
		ID            string              `json:"id"`
		Submitter     string              `json:"submitter"`
		Authors       string              `json:"authors"`
		Title         string              `json:"title"`
		Comments      any                 `json:"comments"`
		JournalRef    any                 `json:"journal-ref"`
		DOI           any                 `json:"doi"`
		ReportNo      any                 `json:"report-no"`
		Categories    string              `json:"categories"`
		License       any                 `json:"license"`
		Abstract      string              `json:"abstract"`
		Versions      []map[string]string `json:"versions"`
		UpdateDate    string              `json:"update_date"`
		AuthorsParsed [][]string          `json:"authors_parsed"`
	}{id, "A. Person", "A. Person, B. Bal\\'azs", title, comments, nil, nil, nil, cats, license, abstract,
		versions, fmt.Sprintf("%d-01-02", year), [][]string{{"Person", "A.", ""}, {"Balázs", "B.", ""}}}
	line, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	c, _ := comments.(string)
	l, _ := license.(string)
	want = year >= 2020 &&
		(strings.Contains(title, "Survey") || strings.Contains(title, "Review")) &&
		(strings.Contains(strings.ToLower(c), "publish") || strings.Contains(strings.ToLower(c), "accept")) &&
		l != "" && !strings.Contains(l, "by-nc-sa")
	return line, want
}

// genSnapshot returns n lines and the indices the default filter keeps.
func genSnapshot(n int, seed uint64) (lines [][]byte, kept []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		line, want := genRecord(rng, i)
		lines = append(lines, line)
		if want {
			kept = append(kept, i)
		}
	}
	return lines, kept
}
