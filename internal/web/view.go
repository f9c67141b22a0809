package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Claim statuses shown in the audit view, as CSS classes and legend.
const (
	statusSupported    = "supported"
	statusPartial      = "partial"
	statusUnsupported  = "unsupported"
	statusContradicted = "contradicted"
	statusUnknown      = "unknown"
	statusUncited      = "uncited"
)

// claimStatus sums up a claim's verdicts: uncited when it cites nothing,
// else its best judged label (supported, partial, contradicted, then
// unsupported; a contradiction outranks a mere lack of support because it
// is what a reader must see), unknown when no source could be judged.
func claimStatus(c eval.ClaimResult) string {
	if !c.Cited {
		return statusUncited
	}
	has := map[claimtrace.Label]bool{}
	for _, v := range c.Verdicts {
		has[v.Label] = true
	}
	for _, l := range []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Contradicted, claimtrace.Unsupported} {
		if has[l] {
			return string(l)
		}
	}
	return statusUnknown
}

// reviewedStatus is the status a review gives a claim: its verdict label,
// or for a fact label the verdict it amounts to.
func reviewedStatus(label string) string {
	switch label {
	case string(claimtrace.FactTrue):
		return statusSupported
	case string(claimtrace.FactFalse):
		return statusContradicted
	case string(claimtrace.FactUndecided):
		return statusUnknown
	}
	return label
}

// factNote describes the fact-check of a non-cited claim ("" for a cited
// one).
func factNote(c eval.ClaimResult) string {
	switch {
	case c.Cited:
		return ""
	case c.CheckWorthy == nil:
		return "not classified"
	case !*c.CheckWorthy:
		return "not check-worthy"
	case c.Fact == nil:
		return "check-worthy fact, not fact-checked"
	}
	return fmt.Sprintf("check-worthy fact: %s (confidence %.0f%%)", c.Fact.Label, 100*c.Fact.Confidence)
}

// claimRef is a claim as linked from the report text and the claim list.
type claimRef struct {
	ID, Href string
	Index    int
	Status   string // the status shown (the reviews' when reviewed)
	Machine  string // the pipeline's status
	FactNote string
	Reviewed bool
	// Reviewers counts the reviewers of the claim; Disputed says they
	// disagree with no label in the majority, and the status shown stays
	// the pipeline's.
	Reviewers int
	Disputed  bool
	// ReviewLabel is the reviews' label (a lone review's, or the
	// majority's), "" when disputed or not reviewed.
	ReviewLabel string
	Selected    bool // the claim whose panel the page shows
	Text        string
}

func newClaimRef(base string, i int, c eval.ClaimResult, rvs []Review) claimRef {
	ref := claimRef{ID: c.ID, Href: base + "?claim=" + url.QueryEscape(c.ID), Index: i, Status: claimStatus(c), FactNote: factNote(c), Text: c.Text}
	ref.Machine = ref.Status
	if len(rvs) > 0 {
		ref.Reviewed, ref.Reviewers = true, len(rvs)
		ref.ReviewLabel, ref.Disputed = consensus(rvs)
		if !ref.Disputed {
			ref.Status = reviewedStatus(ref.ReviewLabel)
		}
	}
	return ref
}

// Title is the tooltip of a claim in the report text.
func (c claimRef) Title() string {
	t := c.ID + ": " + c.Machine
	if c.FactNote != "" {
		t += " — " + c.FactNote
	}
	switch {
	case c.Disputed:
		t += fmt.Sprintf(" — disputed: %d reviewers disagree", c.Reviewers)
	case c.Reviewers > 1:
		t += fmt.Sprintf(" — reviewed: %s (majority of %d reviewers)", c.Status, c.Reviewers)
	case c.Reviewed:
		t += " — reviewed: " + c.Status
	}
	return t
}

// textPiece is a piece of report text, a claim or the text between.
type textPiece struct {
	Text  string
	Claim *claimRef
}

// evidenceView is one verdict on a (claim, source) pair with the evidence
// passage shown in its source text when the text is stored.
type evidenceView struct {
	claimtrace.Verdict
	Source    *eval.SourceResult
	SourceURL string // http(s) link to the source, "" when there is none
	TextHref  string // the whole source text, "" when not stored
	// Before, Match and After are the context and the evidence passage
	// inside the source text; Cut* say whether the context was cut.
	Before, Match, After string
	CutBefore, CutAfter  bool
	Located              bool
	// Note says why the evidence is shown alone.
	Note string
}

// Title names the source of a verdict.
func (e evidenceView) Title() string {
	if e.Source != nil && e.Source.Work.Title != "" {
		return e.Source.Work.Title
	}
	return e.URL
}

// pathView is a claim's provenance path π(c), as read from the graph.
type pathView struct {
	Nodes []pathNode
	Edges []pathEdge
	prov.ClaimMetrics
	Conflicts []prov.ConflictStatus
	// Missing says why the path is not shown.
	Missing string
}

type pathNode struct {
	ID, Kind, Label, Detail string
	Resolved                bool
}

type pathEdge struct {
	From, To, Rel, Label, Strength string
}

// newPath lays out π(c) for a reader.
func newPath(p *prov.Path) *pathView {
	v := &pathView{ClaimMetrics: p.Metrics, Conflicts: p.Conflicts}
	for _, s := range p.Sources {
		label := s.Title
		if label == "" {
			label = s.URL
		}
		if label == "" {
			label = s.Key
		}
		v.Nodes = append(v.Nodes, pathNode{ID: s.ID, Kind: "source", Label: label, Detail: s.URL, Resolved: s.Resolved})
	}
	for _, r := range p.Reasoning {
		v.Nodes = append(v.Nodes, pathNode{ID: r.ID, Kind: "reasoning " + string(r.Type), Label: r.Inference, Detail: r.Model, Resolved: true})
	}
	for _, e := range p.Edges {
		pe := pathEdge{From: e.From, To: e.To, Rel: e.Rel.String(), Label: string(e.Label)}
		if e.Strength != nil {
			pe.Strength = strconv.FormatFloat(*e.Strength, 'f', 2, 64)
		}
		v.Edges = append(v.Edges, pe)
	}
	return v
}

// claimPanel is everything the audit view shows about one claim.
type claimPanel struct {
	claimRef
	Run, Task   string
	Cited       bool
	Citations   []string
	Evidence    []evidenceView
	Fact        *claimtrace.Fact
	CheckWorthy *bool
	Why         string
	// AAR figures of the claim as the pipeline computed them.
	Complete bool
	Gap      string
	Nodes    int
	PSnd     *float64
	Path     *pathView
	// Reviews are every reviewer's review of the claim, oldest first.
	Reviews []reviewView
	// Seconds is the stored audit time on the claim over all sessions.
	Seconds  float64
	Writable bool
	// Static marks a panel of a static export: no timer, no links to the
	// server.
	Static bool
	// Labels are those a review of this claim may give.
	Labels []string
}

// gapText reads a claim's stored gap. Stores written before the pipeline
// named its gaps hold prov.Gap's number as a control character.
func gapText(g string) string {
	if len(g) == 1 && g[0] < ' ' {
		return prov.Gap(g[0]).String()
	}
	return g
}

// ReportLine is one report's headline figures on the run page and in the
// API.
type ReportLine struct {
	Task      string   `json:"task_id"`
	Href      string   `json:"-"`
	Status    string   `json:"status"`
	Error     string   `json:"error,omitempty"`
	Domain    string   `json:"domain,omitempty"`
	Claims    int      `json:"claims"`
	Cited     int      `json:"cited_claims"`
	Precision *float64 `json:"precision"`
	// PrecisionVerifiable is the optimistic bound beside strict precision;
	// Flagged marks a report whose precision walls could move.
	PrecisionVerifiable *float64 `json:"precision_verifiable"`
	Flagged             bool     `json:"flagged"`
	Recall              *float64 `json:"recall"`
	MatchRate           *float64 `json:"match_rate"`
	Accuracy            *float64 `json:"factual_accuracy"`
	PCov                *float64 `json:"pcov"`
	PSnd                *float64 `json:"psnd"`
	CTran               *float64 `json:"ctran"`
	AEffProxy           *float64 `json:"aeff_proxy"`
	// AEff is the empirical audit effort, minutes per claim audited.
	AEff          *float64 `json:"aeff_minutes_per_claim"`
	ClaimsAudited int      `json:"claims_audited"`
	// ClaimsReviewed counts the claims reviewed by a person on the
	// report's current text; ReviewAgreement is the share of their reviews
	// that give the pipeline's label (Agreement.Rate).
	ClaimsReviewed  int      `json:"claims_reviewed"`
	ReviewAgreement *float64 `json:"review_agreement"`
}

// headline is the part of a stored result the run page reads.
type headline struct {
	Task     string `json:"task_id"`
	SHA256   string `json:"sha256"`
	Status   string `json:"status"`
	Error    string `json:"error"`
	Domain   string `json:"domain"`
	Citation *struct {
		Precision           *float64 `json:"precision"`
		PrecisionVerifiable *float64 `json:"precision_verifiable"`
		Flagged             bool     `json:"flagged"`
		Recall              float64  `json:"recall"`
	} `json:"citation"`
	Cited    *eval.CitedStats    `json:"cited"`
	NonCited *eval.NonCitedStats `json:"non_cited"`
	AAR      *eval.AAR           `json:"aar"`
	Stats    eval.Stats          `json:"stats"`
}

func newReportLine(h headline, ts []Timing) ReportLine {
	l := ReportLine{Task: h.Task, Status: h.Status, Error: h.Error, Domain: h.Domain, Claims: h.Stats.Claims, Cited: h.Stats.CitedClaims}
	if h.Citation != nil {
		r := h.Citation.Recall
		l.Precision, l.PrecisionVerifiable, l.Flagged, l.Recall = h.Citation.Precision, h.Citation.PrecisionVerifiable, h.Citation.Flagged, &r
	}
	if h.Cited != nil {
		l.MatchRate = h.Cited.MatchRate
	}
	if h.NonCited != nil {
		l.Accuracy = h.NonCited.Accuracy
	}
	if a := h.AAR; a != nil {
		l.PCov, l.PSnd, l.CTran, l.AEffProxy = a.PCov, a.PSnd, a.CTran, a.AEffProxy
	}
	var cur []Timing
	for _, t := range ts {
		if t.ReportSHA256 == h.SHA256 {
			cur = append(cur, t)
		}
	}
	e := effort(cur)
	l.AEff, l.ClaimsAudited = e.MinutesPerClaim, e.ClaimsAudited
	return l
}

// reportURL is the audit view's path.
func reportURL(run, task string) string {
	return "/runs/" + url.PathEscape(run) + "/reports/" + url.PathEscape(task)
}

// httpURL returns u when it is an absolute http(s) URL, else "".
func httpURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.String()
}

// pct formats a ratio as a percentage, "—" when undefined.
func pct(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(100**p, 'f', 1, 64) + "%"
}

// dec formats a number with two decimals, "—" when undefined.
func dec(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

// duration formats seconds as "1 min 05 s" or "42 s".
func duration(sec float64) string {
	s := int(sec + 0.5)
	if s < 60 {
		return strconv.Itoa(s) + " s"
	}
	return fmt.Sprintf("%d min %02d s", s/60, s%60)
}

// plural writes n and a noun, adding an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// trimText shortens s to about n bytes at a word boundary.
func trimText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := clip(s, n)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		return cut[:i] + " …"
	}
	return cut
}
