package analysis

import (
	"sort"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/score"
)

// Share is a count and its share of a whole (nil when the whole is 0).
type Share struct {
	N     int      `json:"n"`
	Share *float64 `json:"share"`
}

func share(n, of int) Share {
	s := Share{N: n}
	if of > 0 {
		s.Share = ptr(float64(n) / float64(of))
	}
	return s
}

// Causes of an unreachable or unidentified source, read from a work's
// status (claimtrace.Work.Status) or a verdict's reason.
const (
	// CauseFabricatedArXiv is an arXiv id arXiv does not know; CauseFabricatedDOI
	// a DOI no registry resolves: identifiers the report made up.
	CauseFabricatedArXiv = "fabricated_arxiv_id"
	CauseFabricatedDOI   = "fabricated_doi"
	// CauseDead is a link that answers 404/410, a host that does not
	// exist, or an error page served as content.
	CauseDead = "dead"
	// CauseWalled is a bot wall, paywall or login page (or 401/403/429).
	CauseWalled = "walled"
	// CauseUnreachable is a timeout, a network error or a 5xx.
	CauseUnreachable = "unreachable"
	// CauseUnreadable is a page with no text worth judging.
	CauseUnreadable = "unreadable"
	CauseInvalidURL = "invalid_url"
	CauseOther      = "other"
)

// statusCause classifies a work status ("http 404", "bot_wall", "arxiv id
// not found", …).
func statusCause(status string) string {
	s := strings.ToLower(strings.TrimSpace(status))
	switch {
	case s == "arxiv id not found":
		return CauseFabricatedArXiv
	case s == "doi not registered":
		return CauseFabricatedDOI
	case s == "no such host" || s == "error_page":
		return CauseDead
	case s == "bot_wall" || s == "paywall" || s == "login":
		return CauseWalled
	case s == "unreachable" || s == "timeout" || s == "error":
		return CauseUnreachable
	case s == "empty" || strings.HasPrefix(s, "unreadable"):
		return CauseUnreadable
	case s == "invalid url":
		return CauseInvalidURL
	case strings.HasPrefix(s, "http "):
		code, err := strconv.Atoi(strings.TrimPrefix(s, "http "))
		switch {
		case err != nil:
		case code == 401 || code == 403 || code == 429 || code == 451:
			return CauseWalled
		case code >= 500:
			return CauseUnreachable
		case code >= 400:
			return CauseDead
		}
	}
	return CauseOther
}

// Why a cited statement's verdict is unknown: its source is dead, walled,
// unreachable or has no text to read (an empty page, an unreadable file, a
// title-only reference), or the judge failed, quoted evidence the source
// does not hold, or abstained.
const (
	UnknownSourceDead        = "source_dead"
	UnknownSourceWalled      = "source_walled"
	UnknownSourceUnreachable = "source_unreachable"
	UnknownSourceNoText      = "source_no_text"
	UnknownJudgeFailed       = "judge_failed"
	UnknownEvidenceRejected  = "evidence_rejected"
	UnknownJudgeAbstained    = "judge_abstained"
)

// unknownCause classifies the reason of an unknown verdict, as the
// evaluation writes it.
func unknownCause(reason string) string {
	switch {
	case strings.HasPrefix(reason, "source not readable: "):
		status := strings.TrimPrefix(reason, "source not readable: ")
		if status == "-" || status == "" {
			// Nothing was fetched: a reference by title or identifier only.
			return UnknownSourceNoText
		}
		switch statusCause(status) {
		case CauseDead, CauseFabricatedArXiv, CauseFabricatedDOI, CauseInvalidURL:
			return UnknownSourceDead
		case CauseWalled:
			return UnknownSourceWalled
		case CauseUnreadable:
			return UnknownSourceNoText
		}
		return UnknownSourceUnreachable
	case strings.HasPrefix(reason, "source shows a "):
		wall, _, _ := strings.Cut(strings.TrimPrefix(reason, "source shows a "), " ")
		switch statusCause(wall) {
		case CauseDead:
			return UnknownSourceDead
		case CauseWalled:
			return UnknownSourceWalled
		}
		return UnknownSourceNoText
	case strings.HasPrefix(reason, "source has no readable text"):
		return UnknownSourceNoText
	case strings.HasPrefix(reason, "source not fetched"):
		// The network was down, or the run's fetch time limit ran out.
		return UnknownSourceUnreachable
	case strings.HasPrefix(reason, "judge failed") || strings.HasPrefix(reason, "judge returned "):
		return UnknownJudgeFailed
	case strings.HasPrefix(reason, "evidence quote not found") || strings.HasPrefix(reason, "verdict without evidence"):
		return UnknownEvidenceRejected
	}
	return UnknownJudgeAbstained
}

// CitationErrors breaks down a run's cited works that are not ground-truth
// hits.
type CitationErrors struct {
	// Works are the distinct works cited; Hits matched the ground truth.
	Works   int `json:"works"`
	Hits    int `json:"hits"`
	NonHits int `json:"non_hits"`
	// Non-hits by reason, as shares of the non-hits. PostCutoff is the
	// paper's temporal-cutoff violation; Unresolvable its unverifiable
	// reference.
	PostCutoff   Share `json:"post_cutoff"`
	Unresolvable Share `json:"unresolvable"`
	// Unverifiable pages answered but could not be read (a wall, a shell,
	// too little text) and nothing established what they are: against
	// strict precision, out of the verifiable-only bound, and shown here
	// so a run full of walls is visible.
	Unverifiable Share `json:"unverifiable"`
	// Misattributed works are real, but not the paper the report names;
	// NotFetched sources could not be fetched (no network): no verdict.
	Misattributed Share `json:"misattributed"`
	NotFetched    Share `json:"not_fetched"`
	NotAPaper     Share `json:"not_a_paper"`
	SourceSurvey  Share `json:"source_survey"`
	NotInGT       Share `json:"not_in_ground_truth"`
	// UnresolvableBy breaks the unresolvable down by cause (Cause…), as
	// shares of the unresolvable. Its fabricated_arxiv_id and
	// fabricated_doi entries are identifiers resolvers reject.
	UnresolvableBy map[string]Share `json:"unresolvable_by"`
	// Fabricated counts those identifiers, as a share of all cited works.
	Fabricated Share `json:"fabricated_identifiers"`
}

// StatementErrors breaks down the verdicts on (cited statement, source)
// pairs.
type StatementErrors struct {
	Pairs  int `json:"pairs"`
	Judged int `json:"judged"`
	// Supported … Contradicted are shares of the judged pairs.
	Supported    Share `json:"supported"`
	Partial      Share `json:"partial"`
	Unsupported  Share `json:"unsupported"`
	Contradicted Share `json:"contradicted"`
	// Unknown is a share of all pairs; UnknownBy its causes (Unknown…), as
	// shares of the unknown; UnknownSource and UnknownJudge group them.
	Unknown       Share            `json:"unknown"`
	UnknownBy     map[string]Share `json:"unknown_by"`
	UnknownSource Share            `json:"unknown_source"`
	UnknownJudge  Share            `json:"unknown_judge"`
}

// FactErrors counts the fact-checks of non-cited statements.
type FactErrors struct {
	Checked int `json:"checked"`
	Decided int `json:"decided"`
	// False is a share of the decided; Undecided of the checked.
	False     Share `json:"false"`
	Undecided Share `json:"undecided"`
}

// Example is one instance of an error category.
type Example struct {
	Task   string `json:"task_id"`
	URL    string `json:"url,omitempty"`
	Title  string `json:"title,omitempty"`
	Claim  string `json:"claim,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Taxonomy is the automatic part of the A.2.6 error taxonomy for one run.
type Taxonomy struct {
	System     string          `json:"system"`
	Dir        string          `json:"dir"`
	Reports    int             `json:"reports"`
	Citations  CitationErrors  `json:"citations"`
	Statements StatementErrors `json:"statements"`
	Facts      FactErrors      `json:"facts"`
	// Examples holds up to the asked number of examples per category
	// (the reasons, causes and labels above, and "false" facts), drawn
	// from the tasks in turn.
	Examples map[string][]Example `json:"examples,omitempty"`
}

// Example categories beyond the reasons and causes.
const (
	ExampleUnsupported  = "unsupported"
	ExampleContradicted = "contradicted"
	ExampleFalseFact    = "false_fact"
)

// Classify computes a run's error taxonomy with up to examples examples
// per category.
func Classify(run *Run, examples int) *Taxonomy {
	t := &Taxonomy{System: run.Name, Dir: run.Dir, Reports: len(run.Reports)}
	ex := exampleSet{}
	var (
		reasons                                    = map[string]int{}
		unresolvableBy                             = map[string]int{}
		unknownBy                                  = map[string]int{}
		supported, partial, unsupported, contra    int
		unknown, pairs                             int
		checked, decided, falseFacts, undecided    int
		works, hits, fabricated, unresolvableTotal int
	)
	for _, r := range run.Reports {
		c := r.Citation
		works += len(c.Matched) + len(c.Unmatched)
		hits += len(c.Matched)
		for _, u := range c.Unmatched {
			reasons[u.Reason]++
			e := Example{Task: r.Task, URL: u.URL, Title: u.Title, Detail: u.Detail}
			ex.add(u.Reason, e)
			if u.Reason == score.ReasonUnresolvable {
				unresolvableTotal++
				cause := statusCause(u.Detail)
				unresolvableBy[cause]++
				if cause == CauseFabricatedArXiv || cause == CauseFabricatedDOI {
					fabricated++
					ex.add(cause, e)
				}
			}
		}
		for _, cl := range r.Claims {
			for _, v := range cl.Verdicts {
				pairs++
				e := Example{Task: r.Task, URL: v.URL, Claim: cl.Text, Detail: v.Reason}
				switch v.Label {
				case claimtrace.Supported:
					supported++
				case claimtrace.Partial:
					partial++
				case claimtrace.Unsupported:
					unsupported++
					ex.add(ExampleUnsupported, e)
				case claimtrace.Contradicted:
					contra++
					if v.Evidence != "" {
						e.Detail = "source: " + v.Evidence
					}
					ex.add(ExampleContradicted, e)
				default:
					unknown++
					cause := unknownCause(v.Reason)
					unknownBy[cause]++
					ex.add(cause, e)
				}
			}
			if f := cl.Fact; f != nil && !cl.Cited {
				checked++
				switch f.Label {
				case claimtrace.FactTrue:
					decided++
				case claimtrace.FactFalse:
					decided++
					falseFacts++
					detail := ""
					for _, v := range f.Votes {
						if v.Label == claimtrace.FactFalse && v.Reason != "" {
							detail = v.Checker + ": " + v.Reason
							break
						}
					}
					ex.add(ExampleFalseFact, Example{Task: r.Task, Claim: cl.Text, Detail: detail})
				default:
					undecided++
				}
			}
		}
	}
	non := works - hits
	t.Citations = CitationErrors{
		Works: works, Hits: hits, NonHits: non,
		PostCutoff:     share(reasons[score.ReasonPostCutoff], non),
		Unresolvable:   share(reasons[score.ReasonUnresolvable], non),
		Unverifiable:   share(reasons[score.ReasonUnverifiable], non),
		Misattributed:  share(reasons[score.ReasonMisattributed], non),
		NotFetched:     share(reasons[score.ReasonNotFetched], non),
		NotAPaper:      share(reasons[score.ReasonNotAPaper], non),
		SourceSurvey:   share(reasons[score.ReasonSourceSurvey], non),
		NotInGT:        share(reasons[score.ReasonNotInGT], non),
		UnresolvableBy: shares(unresolvableBy, unresolvableTotal),
		Fabricated:     share(fabricated, works),
	}
	judged := supported + partial + unsupported + contra
	var bySource, byJudge int
	for k, n := range unknownBy {
		if strings.HasPrefix(k, "source_") {
			bySource += n
		} else {
			byJudge += n
		}
	}
	t.Statements = StatementErrors{
		Pairs: pairs, Judged: judged,
		Supported: share(supported, judged), Partial: share(partial, judged),
		Unsupported: share(unsupported, judged), Contradicted: share(contra, judged),
		Unknown: share(unknown, pairs), UnknownBy: shares(unknownBy, unknown),
		UnknownSource: share(bySource, unknown), UnknownJudge: share(byJudge, unknown),
	}
	t.Facts = FactErrors{Checked: checked, Decided: decided, False: share(falseFacts, decided), Undecided: share(undecided, checked)}
	if examples > 0 {
		t.Examples = ex.pick(examples)
	}
	return t
}

func shares(counts map[string]int, of int) map[string]Share {
	out := make(map[string]Share, len(counts))
	for k, n := range counts {
		out[k] = share(n, of)
	}
	return out
}

// exampleSet collects every instance of each category, in task order.
type exampleSet map[string][]Example

func (s exampleSet) add(category string, e Example) {
	if r := []rune(e.Claim); len(r) > 300 {
		e.Claim = string(r[:299]) + "…"
	}
	s[category] = append(s[category], e)
}

// pick takes up to n examples of each category, one task at a time in
// turn (the first instance of each task, then the second…), so the
// examples show several reports rather than the first one's.
func (s exampleSet) pick(n int) map[string][]Example {
	out := map[string][]Example{}
	for cat, all := range s {
		byTask := map[string][]Example{}
		var tasks []string
		for _, e := range all {
			if _, ok := byTask[e.Task]; !ok {
				tasks = append(tasks, e.Task)
			}
			byTask[e.Task] = append(byTask[e.Task], e)
		}
		sort.Strings(tasks)
		var got []Example
		for round := 0; len(got) < n; round++ {
			added := false
			for _, task := range tasks {
				if es := byTask[task]; round < len(es) && len(got) < n {
					got = append(got, es[round])
					added = true
				}
			}
			if !added {
				break
			}
		}
		out[cat] = got
	}
	return out
}
