package eval

import (
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
)

// joinByTitle makes one work of the papers that are one paper under several
// keys: an arXiv preprint and its DOI, a venue page, a title-only entry of
// the reference list. Papers are one when their strict normalized titles
// (biblio.TitleKey) are equal and their identifiers do not disagree (two
// arXiv ids, or two DOIs other than arXiv's own); similar titles are never
// joined. It returns the works in order and, for each key that was joined
// into another, that key.
func joinByTitle(order []string, works map[string]*claimtrace.Work) ([]claimtrace.Work, map[string]string) {
	byTitle := map[string][]string{} // title key → work keys, in order
	var titles []string
	for _, k := range order {
		w := works[k]
		if w.Kind != claimtrace.WorkPaper {
			continue
		}
		t := biblio.TitleKey(w.Title)
		if t == "" {
			continue
		}
		if _, ok := byTitle[t]; !ok {
			titles = append(titles, t)
		}
		byTitle[t] = append(byTitle[t], k)
	}
	into := map[string]string{}
	for _, t := range titles {
		keys := byTitle[t]
		if len(keys) < 2 {
			continue
		}
		// The best-identified work holds the others: arXiv, DOI, URL, title.
		var groups [][]string
		for _, k := range sortByIdentity(keys) {
			joined := false
			for i, g := range groups {
				if agree(works, g, k) {
					groups[i] = append(g, k)
					joined = true
					break
				}
			}
			if !joined {
				groups = append(groups, []string{k})
			}
		}
		for _, g := range groups {
			head := works[g[0]]
			for _, k := range g[1:] {
				mergeWork(head, *works[k])
				into[k] = g[0]
			}
		}
	}
	list := make([]claimtrace.Work, 0, len(order)-len(into))
	for _, k := range order {
		if _, gone := into[k]; !gone {
			list = append(list, *works[k])
		}
	}
	return list, into
}

// sortByIdentity orders keys by the strength of their identity (arxiv:,
// doi:, url:, title:), keeping the given order within a kind.
func sortByIdentity(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, prefix := range []string{"arxiv:", "doi:", "url:", ""} {
		for _, k := range keys {
			if rank(k) == prefix {
				out = append(out, k)
			}
		}
	}
	return out
}

func rank(k string) string {
	for _, p := range []string{"arxiv:", "doi:", "url:"} {
		if strings.HasPrefix(k, p) {
			return p
		}
	}
	return ""
}

// agree reports whether work k can join the group: no member has another
// arXiv id or another (non-arXiv) DOI.
func agree(works map[string]*claimtrace.Work, group []string, k string) bool {
	w := works[k]
	for _, g := range group {
		o := works[g]
		if a, b := arxivOf(*o), arxivOf(*w); a != "" && b != "" && a != b {
			return false
		}
		if a, b := doiOf(*o), doiOf(*w); a != "" && b != "" && a != b {
			return false
		}
	}
	return true
}

func arxivOf(w claimtrace.Work) string {
	if id := biblio.ArXivID(w.ArXivID); id != "" {
		return id
	}
	return biblio.ArXivID(w.DOI)
}

// doiOf is the work's DOI unless it is arXiv's own (10.48550/arXiv.…),
// which arxivOf already compares.
func doiOf(w claimtrace.Work) string {
	d := strings.ToLower(w.DOI)
	if strings.HasPrefix(d, "10.48550/") {
		return ""
	}
	return d
}
