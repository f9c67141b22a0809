// Package claimtrace holds the domain types shared by every part of the
// program: benchmark tasks and their ground-truth references, parsed reports
// (claims and citations with byte spans), resolved works, verdicts and votes.
//
// It imports only the standard library. Behaviour lives in internal/...;
// the types here are the vocabulary those packages exchange, so that no
// map[string]any flows between pipeline stages.
package claimtrace

import (
	"errors"
	"time"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrNotFound reports that a requested item does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid reports malformed input: a corrupt report, a bad graph, a bad flag.
	ErrInvalid = errors.New("invalid input")
	// ErrUnreachable reports that a source could not be reached (dead link,
	// offline mode, network failure after retries).
	ErrUnreachable = errors.New("unreachable")
	// ErrBlocked reports that a URL was refused by the fetcher's safety policy
	// (private, loopback or link-local address, bad scheme).
	ErrBlocked = errors.New("blocked by fetch policy")
	// ErrNoNetwork reports that the network itself failed (name lookups and
	// connections fail for every host alike, known-good hosts included),
	// so nothing can be said of the URL asked for: not a dead link.
	ErrNoNetwork = errors.New("no network")
	// ErrBudget reports that a run budget (calls, cost) is exhausted.
	ErrBudget = errors.New("budget exhausted")
	// ErrTooLarge reports an input over a configured size cap.
	ErrTooLarge = errors.New("too large")

	// The failures of a paid API (model providers, search APIs, readers),
	// shared by their clients so that one errors.Is test covers them all.

	// ErrAuth reports a missing, invalid or unauthorised key (401, 403).
	ErrAuth = errors.New("authentication failed")
	// ErrQuota reports that the account's credit or quota is used up (402):
	// retrying cannot help.
	ErrQuota = errors.New("quota exhausted")
	// ErrRateLimit reports a rate limit (429 and its provider-specific
	// forms).
	ErrRateLimit = errors.New("rate limited")
	// ErrBadRequest reports a request the API rejected (another 4xx).
	ErrBadRequest = errors.New("bad request")
)

// Task is one ReportBench task: a peer-reviewed arXiv survey turned into a
// research prompt. Field names follow the released ReportBench_v1.1.jsonl,
// which carries the arXiv metadata-snapshot fields of the survey.
type Task struct {
	ArXivID    string    `json:"arxiv_id"`
	Title      string    `json:"title"`
	Authors    string    `json:"authors,omitempty"`
	Abstract   string    `json:"abstract,omitempty"`
	Comments   string    `json:"comments,omitempty"`
	JournalRef string    `json:"journal-ref,omitempty"`
	DOI        string    `json:"doi,omitempty"`
	Categories string    `json:"categories,omitempty"`
	License    string    `json:"license,omitempty"`
	Versions   []Version `json:"versions,omitempty"`
	UpdateDate string    `json:"update_date,omitempty"`
	Domain     string    `json:"application_domain,omitempty"`
	Prompt     string    `json:"prompt"`
}

// Version is one arXiv version of a survey, as in the metadata snapshot
// ("created": "Fri, 8 Dec 2023 06:31:19 GMT").
type Version struct {
	Version string `json:"version"`
	Created string `json:"created"`
}

// Reference is one ground-truth reference of a survey, as released in
// ReportBench_v1.1_GT/<arxiv_id>.jsonl.
type Reference struct {
	BibID  string            `json:"bib_id"`
	Title  string            `json:"title"`
	Author string            `json:"author"`
	Meta   map[string]string `json:"meta_info"`
}

// CitationKind says how a citation was written in the report text.
type CitationKind string

// Citation kinds recognised by the parser.
const (
	KindLink       CitationKind = "link"        // [text](url), [[n]](url)
	KindAutolink   CitationKind = "autolink"    // <url>
	KindBareURL    CitationKind = "bare_url"    // https://… in running text
	KindNumbered   CitationKind = "numbered"    // [n] resolved through a reference list
	KindAuthorYear CitationKind = "author_year" // (Smith et al., 2020) resolved through a reference list
	KindFootnote   CitationKind = "footnote"    // [^x] resolved through [^x]: …
	KindDOI        CitationKind = "doi"         // doi:10.…
	KindArXiv      CitationKind = "arxiv"       // arXiv:2101.00001, hep-th/9901001
	KindListEntry  CitationKind = "list_entry"  // an entry of a reference list / bibliography
	KindGrounding  CitationKind = "grounding"   // provider grounding metadata on a span (Gemini, Anthropic): no marker in the text
)

// Citation is one occurrence of a reference to a source in a report: an
// in-text marker resolved to what it points at, or an entry of the report's
// reference list. Start and End are byte offsets of the marker (or list
// entry) in the report text.
type Citation struct {
	Marker  string       `json:"marker"`
	Kind    CitationKind `json:"kind"`
	URL     string       `json:"url,omitempty"`
	DOI     string       `json:"doi,omitempty"`
	ArXivID string       `json:"arxiv_id,omitempty"`
	Title   string       `json:"title,omitempty"`
	Start   int          `json:"start"`
	End     int          `json:"end"`
}

// HasTarget reports whether the citation points at something that can be
// resolved: a URL, an identifier or a title. A dangling marker ("[7]" with
// no seventh reference) has no target.
func (c Citation) HasTarget() bool {
	return c.URL != "" || c.DOI != "" || c.ArXivID != "" || c.Title != ""
}

// Claim is one sentence of the report with its byte span and the in-text
// citations (indices into Document.Citations) attached to it.
type Claim struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Citations []int  `json:"citations"`
}

// Cited reports whether the claim carries at least one citation.
func (c Claim) Cited() bool { return len(c.Citations) > 0 }

// Document is a parsed report: its text, its claims and every citation
// occurrence. Citations of kind KindListEntry come from the report's
// reference list and are not attached to claims.
type Document struct {
	Text      string     `json:"-"`
	Claims    []Claim    `json:"claims"`
	Citations []Citation `json:"citations"`
}

// WorkKind classifies a cited work.
type WorkKind string

// Work kinds. Only papers enter citation precision and recall.
const (
	WorkPaper   WorkKind = "paper"   // scholarly: arXiv, DOI, scholarly host or metadata
	WorkWeb     WorkKind = "web"     // blogs, news, Wikipedia, docs: counted, not in P/R
	WorkUnknown WorkKind = "unknown" // nothing could be learned (dead or fabricated link)
	// WorkUnverifiable is a live page that could not be read (a bot wall,
	// a paywall, a script shell, too little text) and whose identity
	// nothing established: not a hit, and in strict precision's
	// denominator, since a report must not gain by citing what no one can
	// check.
	WorkUnverifiable WorkKind = "unverifiable"
	// WorkNotFetched is a source the run could not fetch because the
	// network failed (every lookup failing alike), not because of the
	// link: no verdict, out of every figure, fetched again by the next run.
	WorkNotFetched WorkKind = "not_fetched"
)

// Work is a cited source resolved to an identity. Key is its identity:
// "arxiv:<id>" (version-less), "doi:<lowercased doi>", "url:<canonical url>"
// or "title:<normalized title>", in that order of preference, so that several
// URLs of one paper (abs, pdf, doi.org) are one work.
type Work struct {
	Key       string    `json:"key"`
	Kind      WorkKind  `json:"kind"`
	URL       string    `json:"url,omitempty"`
	URLs      []string  `json:"urls,omitempty"`
	ArXivID   string    `json:"arxiv_id,omitempty"`
	DOI       string    `json:"doi,omitempty"`
	Title     string    `json:"title,omitempty"`
	Authors   []string  `json:"authors,omitempty"`
	Published time.Time `json:"published,omitzero"`
	// Resolved is true when the work has fetched content or a verified
	// identifier; an unresolved work is a dead or fabricated citation, or
	// an unreadable one (Kind says which).
	Resolved bool `json:"resolved"`
	// Via records which rung of the metadata ladder identified it
	// (url_id, meta_tags, pdf, arxiv_api, crossref, openalex, title).
	Via string `json:"via,omitempty"`
	// Status carries the fetch outcome ("ok", "http 404", "blocked", …).
	Status string `json:"status,omitempty"`
}

// Label is a verdict on a (claim, source) pair.
type Label string

// Verdict labels. Unknown means the pair could not be judged (source
// unreachable, bot wall, judge failure); it is never counted as unsupported.
const (
	Supported    Label = "supported"
	Partial      Label = "partial"
	Unsupported  Label = "unsupported"
	Contradicted Label = "contradicted"
	Unknown      Label = "unknown"
)

// Verdict is the judgement of whether one source supports one claim.
type Verdict struct {
	URL      string  `json:"url"`
	Label    Label   `json:"label"`
	Strength float64 `json:"strength"`
	Evidence string  `json:"evidence,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	Judge    string  `json:"judge,omitempty"`
}

// FactLabel is the outcome of fact-checking a non-cited claim.
type FactLabel string

// Fact labels. Undecided is a tie or no valid vote; it is counted and shown
// but excluded from factual accuracy.
const (
	FactTrue      FactLabel = "true"
	FactFalse     FactLabel = "false"
	FactUndecided FactLabel = "undecided"
)

// Vote is one fact-checker's answer. A failed call is recorded with Err set
// and is never counted as a vote.
type Vote struct {
	Checker string    `json:"checker"`
	Label   FactLabel `json:"label,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	// URLs are the web sources the checker cited for its answer (web search
	// citations, or the search results it named), so a reader can follow them.
	URLs []string `json:"urls,omitempty"`
	Err  string   `json:"error,omitempty"`
}

// Fact is the ensemble decision on a non-cited claim.
type Fact struct {
	Label      FactLabel `json:"label"`
	Confidence float64   `json:"confidence"`
	Votes      []Vote    `json:"votes"`
}

// LLMCall is the accounting record of one model call (or cache hit). It is
// stored with the run so every token and every cent is attributable.
type LLMCall struct {
	Key             string        `json:"key"`   // response-cache key (hash of provider, model, params, messages, tools)
	Run             string        `json:"run"`   // run id, "" outside a run
	Stage           string        `json:"stage"` // what the call was for: judge, fact_check, extract, check, agent…
	Provider        string        `json:"provider"`
	Model           string        `json:"model"`
	InputTokens     int64         `json:"input_tokens"`
	OutputTokens    int64         `json:"output_tokens"`
	CachedTokens    int64         `json:"cached_tokens"`
	ReasoningTokens int64         `json:"reasoning_tokens"`
	Latency         time.Duration `json:"latency_ns"`
	Cost            float64       `json:"cost_usd"`
	CacheHit        bool          `json:"cache_hit"`
	Attempts        int           `json:"attempts"`
	Err             string        `json:"error,omitempty"`
	At              time.Time     `json:"at"`
}
