package score

import (
	"time"

	"github.com/claimtrace/claimtrace"
)

// GTMatch is a cited work found among the ground-truth references.
type GTMatch struct {
	Ref    int     // index of the reference in the ground truth
	BibID  string  // its bib_id
	Method string  // arxiv_id | doi | url | title | fuzzy_title
	Score  float64 // similarity for fuzzy matches
}

// Matcher finds cited works in a survey's ground truth.
type Matcher interface {
	Match(w claimtrace.Work) (GTMatch, bool)
	// Distinct is the number of distinct ground-truth references (the
	// recall denominator).
	Distinct() int
}

// CitationInput is what ScoreCitations needs for one report.
type CitationInput struct {
	// Works are the report's cited works, distinct by Key.
	Works   []claimtrace.Work
	Matcher Matcher
	// Cutoff is the instant cited works must predate (zero: no cutoff).
	Cutoff time.Time
	// IsSurvey reports whether a work is the task's own survey.
	IsSurvey func(claimtrace.Work) bool
	// Dangling counts citation markers that resolve to nothing.
	Dangling int
	// Misattributed reports whether the report names a cited work by a
	// title that is not the work's own (the strict title test), and that
	// title; nil never does.
	Misattributed func(claimtrace.Work) (stated string, ok bool)
}

// ScoreCitations labels every cited work — a ground-truth hit with how it
// matched, or a miss with its reason — and computes precision (strict and
// verifiable-only), recall and F1, and the report's flags.
//
// Works matching the same ground-truth reference (an arXiv preprint and its
// published DOI, say) are one reference. The order of tests is: not fetched
// (the network failed); the survey itself; misattributed (the report's
// title for it is another paper's, whatever the ground truth holds); a
// ground-truth match; dead or fabricated (unresolvable); alive but
// unreadable, without identity (unverifiable); not a paper; published after
// the cutoff; not in the ground truth.
func ScoreCitations(in CitationInput) CitationScore {
	s := CitationScore{Dangling: in.Dangling, Matched: []Matched{}, Unmatched: []Unmatched{}}
	if in.Matcher != nil {
		s.GTSize = in.Matcher.Distinct()
	}
	hit := map[int]int{} // ground-truth ref → index in s.Matched
	for _, w := range in.Works {
		u := workURL(w)
		miss := func(reason, detail string) {
			s.Unmatched = append(s.Unmatched, Unmatched{URL: u, URLs: w.URLs, Key: w.Key, Title: w.Title, Reason: reason, Detail: detail})
		}
		if w.Kind == claimtrace.WorkNotFetched {
			s.NotFetched++
			miss(ReasonNotFetched, w.Status)
			continue
		}
		s.Works++
		if in.IsSurvey != nil && in.IsSurvey(w) {
			s.Papers++
			s.SourceSurvey++
			miss(ReasonSourceSurvey, "the task's own survey")
			continue
		}
		if stated, ok := misattributed(in, w); ok {
			s.Papers++
			s.Misattributed++
			miss(ReasonMisattributed, "the report names another title")
			s.Unmatched[len(s.Unmatched)-1].StatedTitle = stated
			continue
		}
		if w.Kind != claimtrace.WorkUnknown && in.Matcher != nil {
			if m, ok := in.Matcher.Match(w); ok {
				if i, seen := hit[m.Ref]; seen {
					s.Matched[i].URLs = append(s.Matched[i].URLs, w.URLs...)
					s.Works-- // one reference, counted once
					continue
				}
				hit[m.Ref] = len(s.Matched)
				s.Matched = append(s.Matched, Matched{BibID: m.BibID, URL: u, URLs: w.URLs, Key: w.Key, Title: w.Title, Method: m.Method, Score: m.Score})
				s.Papers++
				s.Hits++
				continue
			}
		}
		switch {
		case w.Kind == claimtrace.WorkUnknown:
			s.Unresolvable++
			miss(ReasonUnresolvable, w.Status)
		case w.Kind == claimtrace.WorkUnverifiable:
			s.Unverifiable++
			miss(ReasonUnverifiable, w.Status)
		case w.Kind == claimtrace.WorkWeb:
			s.Web++
			miss(ReasonNotAPaper, "")
		case !in.Cutoff.IsZero() && !w.Published.IsZero() && !w.Published.Before(in.Cutoff):
			s.Papers++
			s.PostCutoff++
			// The bound, not the month: "on or before May 2021" and "before
			// June 2021" both mean dated before 2021-06-01.
			miss(ReasonPostCutoff, "published "+w.Published.Format("2006-01")+"; works must be dated before "+in.Cutoff.Format("2006-01-02"))
		default:
			s.Papers++
			s.NotInGT++
			miss(ReasonNotInGT, "")
		}
	}
	s.GTHits = len(hit)
	s.Refs = s.Papers
	s.Finish()
	return s
}

// misattributed asks in.Misattributed about a scholarly work.
func misattributed(in CitationInput, w claimtrace.Work) (string, bool) {
	if in.Misattributed == nil || w.Kind != claimtrace.WorkPaper {
		return "", false
	}
	return in.Misattributed(w)
}

func workURL(w claimtrace.Work) string {
	if w.URL != "" {
		return w.URL
	}
	if len(w.URLs) > 0 {
		return w.URLs[0]
	}
	return ""
}
