package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/score"
)

// Survey is one task's ground truth as distinct references: references
// sharing a title key, an arXiv id or a DOI are one (as recall counts
// them), represented by the first of them.
type Survey struct {
	Task string
	Refs []Ref
	// byBibID maps the representative's bib_id (what citation.matched
	// records) to indices into Refs; group maps a representative's index
	// in the ground truth to its index into Refs.
	byBibID map[string][]int
	group   map[int]int
	ix      *biblio.Index
}

// Ref is one distinct ground-truth reference.
type Ref struct {
	BibID string   `json:"bib_id"`
	Title string   `json:"title"`
	Query RefQuery `json:"query"`
	// Key is Query.Key(), the reference's key among the counts.
	Key string `json:"key"`
}

// Surveys prepares the ground truth of tasks for stratification.
func Surveys(ds *dataset.Dataset, tasks []string) ([]*Survey, error) {
	var out []*Survey
	for _, task := range tasks {
		refs, err := ds.GT(task)
		if err != nil {
			return nil, err
		}
		out = append(out, NewSurvey(task, refs))
	}
	return out, nil
}

// NewSurvey groups refs into distinct references with the matcher that
// scores citations (biblio.Index), so the recall here and in the
// evaluation count the same references.
func NewSurvey(task string, refs []claimtrace.Reference) *Survey {
	s := &Survey{Task: task, byBibID: map[string][]int{}, group: map[int]int{}, ix: biblio.NewIndex(refs)}
	for i, r := range refs {
		// A reference's own title finds its group's representative, the
		// group's first member, which was seen before it.
		rep := i
		if m, ok := s.ix.Match(claimtrace.Work{Kind: claimtrace.WorkPaper, Title: r.Title}); ok && m.Method == biblio.MethodTitle {
			rep = m.Ref
		}
		q := refQuery(r)
		if g, ok := s.group[rep]; ok {
			// Complete the group's identifiers from its other members.
			gq := &s.Refs[g].Query
			if gq.DOI == "" {
				gq.DOI = q.DOI
			}
			if gq.ArXivID == "" {
				gq.ArXivID = q.ArXivID
			}
			continue
		}
		s.group[i] = len(s.Refs)
		s.byBibID[r.BibID] = append(s.byBibID[r.BibID], len(s.Refs))
		s.Refs = append(s.Refs, Ref{BibID: r.BibID, Title: r.Title, Query: q})
	}
	// Keys last: a group's identifiers may come from later members.
	for i := range s.Refs {
		s.Refs[i].Key = s.Refs[i].Query.Key()
	}
	return s
}

// refQuery reads a reference's identifiers from its meta_info, as the
// citation matcher does: arXiv ids in eprint/arxivid fields, "arXiv
// preprint arXiv:…" journals, CoRR's "abs/…" volumes and URLs; DOIs in
// doi, url and note fields.
func refQuery(r claimtrace.Reference) RefQuery {
	meta := make(map[string]string, len(r.Meta))
	for k, v := range r.Meta {
		meta[strings.ToLower(k)] = v
	}
	q := RefQuery{Title: strings.TrimSpace(r.Title)}
	for _, k := range []string{"arxivid", "arxiv", "eprint", "journal", "doi", "url", "opturl", "note", "howpublished", "booktitle", "publisher"} {
		v := meta[k]
		switch k {
		case "journal", "note", "howpublished", "booktitle", "publisher":
			if !strings.Contains(strings.ToLower(v), "arxiv") {
				continue
			}
		}
		if id := biblio.ArXivID(v); id != "" {
			q.ArXivID = id
			break
		}
	}
	if v := strings.TrimSpace(meta["volume"]); q.ArXivID == "" && strings.EqualFold(strings.TrimSpace(meta["journal"]), "corr") &&
		strings.HasPrefix(strings.ToLower(v), "abs/") {
		q.ArXivID = biblio.ArXivID(v[4:])
	}
	for _, k := range []string{"doi", "url", "opturl", "eprint", "howpublished", "note"} {
		if d := biblio.DOI(meta[k]); d != "" {
			q.DOI = d
			break
		}
	}
	// An arXiv DataCite DOI is the arXiv id.
	if id, ok := strings.CutPrefix(strings.ToLower(q.DOI), "10.48550/arxiv."); ok {
		if q.ArXivID == "" {
			q.ArXivID = biblio.ArXivID(id)
		}
		q.DOI = ""
	}
	return q
}

// Queries returns what to look up for the survey's references.
func (s *Survey) Queries() []RefQuery {
	out := make([]RefQuery, len(s.Refs))
	for i, r := range s.Refs {
		out[i] = r.Query
	}
	return out
}

// hits returns the indices into s.Refs of matched references. A bib_id
// two distinct references share (the ground truth reuses a few) is
// resolved by matching the cited work's title again.
func (s *Survey) hits(matched []score.Matched) (hit map[int]bool, unknown int) {
	hit = map[int]bool{}
	for _, m := range matched {
		idx := s.byBibID[m.BibID]
		switch len(idx) {
		case 0:
			unknown++
		case 1:
			hit[idx[0]] = true
		default:
			pick := idx[0]
			if r, ok := s.ix.Match(claimtrace.Work{Kind: claimtrace.WorkPaper, Title: m.Title}); ok {
				if g, ok := s.group[r.Ref]; ok && slices.Contains(idx, g) {
					pick = g
				}
			}
			hit[pick] = true
		}
	}
	return hit, unknown
}

// Quartiles cuts a survey's citation counts at their 25%, 50% and 75%
// quantiles (linear interpolation, as NumPy's default) and returns each
// count's quartile, 1 (least cited) to 4 (most cited), with the three
// cuts. A count equal to a cut belongs to the lower quartile: references
// with equal counts always share a quartile, so with ties the quartiles
// are unequal and some may be empty (a survey where most references have
// no citation puts them all in Q1). The result depends only on the
// multiset of counts, never on their order.
func Quartiles(counts []int) (q []int, cuts [3]float64) {
	if len(counts) == 0 {
		return nil, cuts
	}
	sorted := make([]float64, len(counts))
	for i, c := range counts {
		sorted[i] = float64(c)
	}
	sort.Float64s(sorted)
	for k := range cuts {
		cuts[k] = quantile(sorted, float64(k+1)/4)
	}
	q = make([]int, len(counts))
	for i, c := range counts {
		v := float64(c)
		switch {
		case v <= cuts[0]:
			q[i] = 1
		case v <= cuts[1]:
			q[i] = 2
		case v <= cuts[2]:
			q[i] = 3
		default:
			q[i] = 4
		}
	}
	return q, cuts
}

// ImportanceOptions configure Stratify.
type ImportanceOptions struct {
	// MinCounted is the fewest references with a count a survey needs to
	// be cut into quartiles (default 4): below it a "most-cited quarter"
	// means nothing. Its references are reported as unranked.
	MinCounted int
}

// Stratum is recall over one group of references, pooled over tasks.
type Stratum struct {
	Refs   int      `json:"refs"`
	Hits   int      `json:"hits"`
	Recall *float64 `json:"recall"`
}

func (s *Stratum) add(hit bool) {
	s.Refs++
	if hit {
		s.Hits++
	}
}

func (s *Stratum) finish() {
	if s.Refs > 0 {
		s.Recall = ptr(float64(s.Hits) / float64(s.Refs))
	}
}

// SystemRecall is one system's recall by importance quartile (Table 2).
type SystemRecall struct {
	System string `json:"system"`
	Dir    string `json:"dir"`
	// Tasks is the number of scored reports pooled.
	Tasks int `json:"tasks"`
	// Quartiles are Q1 (least cited) to Q4 (most cited).
	Quartiles [4]Stratum `json:"quartiles"`
	// Unranked are references without a count, or of surveys too small to
	// cut.
	Unranked Stratum `json:"unranked"`
	All      Stratum `json:"all"`
	// UnknownBibIDs counts matched bib_ids absent from the ground truth
	// (an evaluation made with another version of the dataset).
	UnknownBibIDs int `json:"unknown_bib_ids"`
	// MissingTasks lists scored tasks that are not in the dataset.
	MissingTasks []string `json:"missing_tasks,omitempty"`
}

// SurveyQuartiles describes how one survey was cut.
type SurveyQuartiles struct {
	Task string `json:"task"`
	// Refs are distinct references; Counted those with a citation count.
	Refs    int `json:"refs"`
	Counted int `json:"counted"`
	// Cuts are the 25/50/75% quantiles of the counts; Sizes the number of
	// references in Q1..Q4. Both are absent for a survey too small to cut.
	Cuts  *[3]float64 `json:"cuts,omitempty"`
	Sizes *[4]int     `json:"sizes,omitempty"`
}

// Importance is the A.2.1 analysis: recall by reference importance.
type Importance struct {
	MinCounted int               `json:"min_counted"`
	Surveys    []SurveyQuartiles `json:"surveys"`
	// References totals the surveys' distinct references: with a count
	// (found), looked up without one (not found), whose lookup failed, not
	// looked up (offline without a cache entry) and without any identifier
	// or title.
	References struct {
		Total    int `json:"total"`
		Found    int `json:"found"`
		NotFound int `json:"not_found"`
		Failed   int `json:"failed"`
		Missing  int `json:"missing"`
		NoQuery  int `json:"no_query"`
	} `json:"references"`
	// SmallSurveys lists surveys with fewer than MinCounted counts.
	SmallSurveys []string       `json:"small_surveys,omitempty"`
	Systems      []SystemRecall `json:"systems"`
}

// Stratify cuts each survey's references into quartiles by citation count
// and computes each run's recall per quartile, pooling the references of
// all the tasks the run scored (A.2.1: "collect all references that fall
// into Q1 across all surveys and measure what fraction were correctly
// cited"). counts are keyed by RefQuery.Key.
func Stratify(surveys []*Survey, counts map[string]CountEntry, runs []*Run, opt ImportanceOptions) (*Importance, error) {
	if opt.MinCounted <= 0 {
		opt.MinCounted = 4
	}
	if opt.MinCounted < 4 {
		return nil, fmt.Errorf("importance: min counted %d: quartiles need at least 4 references: %w", opt.MinCounted, claimtrace.ErrInvalid)
	}
	imp := &Importance{MinCounted: opt.MinCounted, Surveys: []SurveyQuartiles{}, Systems: []SystemRecall{}}
	quart := map[string][]int{} // task → quartile of each ref (0: unranked)
	bySurvey := map[string]*Survey{}
	for _, s := range surveys {
		bySurvey[s.Task] = s
		sq := SurveyQuartiles{Task: s.Task, Refs: len(s.Refs)}
		var idx, vals []int
		for i, r := range s.Refs {
			imp.References.Total++
			k := r.Key
			e, ok := counts[k]
			switch {
			case k == "":
				imp.References.NoQuery++
			case !ok:
				imp.References.Missing++
			case e.Status == CountFound:
				imp.References.Found++
				idx = append(idx, i)
				vals = append(vals, e.CitedBy)
			case e.Status == CountNotFound:
				imp.References.NotFound++
			default:
				imp.References.Failed++
			}
		}
		sq.Counted = len(vals)
		q := make([]int, len(s.Refs))
		if len(vals) >= opt.MinCounted {
			qs, cuts := Quartiles(vals)
			var sizes [4]int
			for j, i := range idx {
				q[i] = qs[j]
				sizes[qs[j]-1]++
			}
			sq.Cuts, sq.Sizes = &cuts, &sizes
		} else {
			imp.SmallSurveys = append(imp.SmallSurveys, s.Task)
		}
		quart[s.Task] = q
		imp.Surveys = append(imp.Surveys, sq)
	}
	for _, run := range runs {
		sr := SystemRecall{System: run.Name, Dir: run.Dir}
		for _, res := range run.Reports {
			s, ok := bySurvey[res.Task]
			if !ok {
				sr.MissingTasks = append(sr.MissingTasks, res.Task)
				continue
			}
			sr.Tasks++
			hit, unknown := s.hits(res.Citation.Matched)
			sr.UnknownBibIDs += unknown
			for i := range s.Refs {
				h := hit[i]
				sr.All.add(h)
				if k := quart[s.Task][i]; k > 0 {
					sr.Quartiles[k-1].add(h)
				} else {
					sr.Unranked.add(h)
				}
			}
		}
		for k := range sr.Quartiles {
			sr.Quartiles[k].finish()
		}
		sr.Unranked.finish()
		sr.All.finish()
		imp.Systems = append(imp.Systems, sr)
	}
	return imp, nil
}
