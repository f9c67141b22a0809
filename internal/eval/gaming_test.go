package eval

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/dataset"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/scholar/scholartest"
	"github.com/claimtrace/claimtrace/internal/score"
	"github.com/claimtrace/claimtrace/internal/store"
)

// Issue 19: citation figures a report cannot game. The adversarial hosts
// are one httptest server answering by Host header; a resolver sends every
// *.example name to it, and the ground-truth papers' arXiv pages come from
// a snapshot.

// hostile answers as the walls deep-research reports cite do, by host name.
func hostile(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	name, _, _ := strings.Cut(host, ".")
	switch strings.TrimRightFunc(name, func(r rune) bool { return r >= '0' && r <= '9' }) {
	case "cloudflare":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<html><head><title>Just a moment...</title></head><body><h1>Checking your browser before accessing the site.</h1><p>Enable JavaScript and cookies to continue.</p><script>window._cf_chl_opt={}</script></body></html>`)
	case "login":
		w.Header().Set("WWW-Authenticate", `Basic realm="members"`)
		http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
	case "ratelimit":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	case "overloaded":
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
	case "empty":
		w.WriteHeader(http.StatusForbidden)
	case "shell":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Loading…</title><script src="/bundle.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`)
	case "akamai":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>You don't have permission to access this page on this server.</p><p>Reference #18.7a2e1</p></body></html>`)
	case "legal":
		http.Error(w, "Unavailable For Legal Reasons", http.StatusUnavailableForLegalReasons)
	case "captcha":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Are you a robot?</title></head><body><p>Please verify you are human to continue.</p><div class="g-recaptcha" data-sitekey="x"></div></body></html>`)
	case "payment":
		http.Error(w, "Payment Required", http.StatusPaymentRequired)
	case "journal":
		// A paywalled article page whose citation_title names the paper.
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Dense Widget Retrieval | Journal of Widgets</title><meta name="citation_title" content="Dense Widget Retrieval"><meta name="citation_journal_title" content="Journal of Widgets"></head><body><h1>Dense Widget Retrieval</h1><p>Subscribe to read the full article. Purchase access for $39.95.</p></body></html>`)
	case "slow":
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "late")
	default:
		http.NotFound(w, r)
	}
}

// walledHosts are the ten hosts of issue 19's first scenario, each a way a
// live server refuses to show a page.
var walledHosts = []string{"cloudflare", "login", "ratelimit", "overloaded", "empty", "shell", "akamai", "legal", "captcha", "payment"}

// toHost resolves every name to 127.0.0.1 (the hostile server) and counts
// lookups; down makes it a machine without a network.
type toHost struct {
	down atomic.Bool
	n    atomic.Int32
}

func (r *toHost) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.n.Add(1)
	if r.down.Load() {
		return nil, &net.DNSError{Err: "dial udp 10.0.0.53:53: connect: network is unreachable", Name: host, IsTemporary: true}
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// liveRun is one issue-19 fixture: a dataset, reports, a snapshot of the
// ground-truth papers' pages, the hostile server and, when records are
// given, fake scholarly APIs.
type liveRun struct {
	t        *testing.T
	dir      string
	port     string
	resolver *toHost
	opts     Options
	fetcher  func() *fetch.Client
}

func newLiveRun(t *testing.T, gt string, reports map[string]string, records ...scholar.Record) *liveRun {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(hostile))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	lr := &liveRun{t: t, dir: t.TempDir(), port: u.Port(), resolver: &toHost{}}
	dir := lr.dir
	os.MkdirAll(filepath.Join(dir, "ds", dataset.GTDir), 0o755)
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	var tasks strings.Builder
	for id, text := range reports {
		tasks.WriteString(`{"arxiv_id":"` + id + `","title":"A Survey of Widgets","prompt":"Survey widgets; cite work before June 2024."}` + "\n")
		os.WriteFile(filepath.Join(dir, "ds", dataset.GTDir, id+".jsonl"), []byte(gt), 0o644)
		os.WriteFile(filepath.Join(dir, "reports", id+".md"), []byte(strings.ReplaceAll(text, "PORT", lr.port)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "ds", dataset.TasksFile), []byte(tasks.String()), 0o644)
	writeSnapshot(t, filepath.Join(dir, "snap"), []snapPage{gtPaperPage, secondGTPage})
	ds, err := dataset.LoadDataset(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fetch.OpenSnapshot(filepath.Join(dir, "snap"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	canon := func(u string) string {
		if c, err := biblio.CanonicalURL(u); err == nil {
			return c
		}
		return u
	}
	lr.fetcher = func() *fetch.Client {
		return fetch.New(fetch.Options{Snapshot: snap, Canon: canon, Resolver: lr.resolver, AllowHosts: []string{"127.0.0.1"},
			Retries: -1, PerHostRPS: -1, Timeout: 5 * time.Second, Probe: []string{"http://probe.example:" + lr.port + "/"}})
	}
	lr.opts = Options{Dataset: ds, ReportsDir: filepath.Join(dir, "reports"), OutDir: filepath.Join(dir, "out"), Mode: "live", Store: st,
		Judge: fixedJudge{}, JudgeName: "fixed"}
	if len(records) > 0 {
		lr.opts.Scholar = scholar.New(scholartest.NewServer(t, records...).Options())
	}
	return lr
}

// run evaluates every report and returns the results by task and the
// summary. A fetcher made by newLiveRun is made again, as a new process
// would: what it learned of the network does not outlive the run.
func (lr *liveRun) run() (map[string]*Result, *Summary) {
	t := lr.t
	t.Helper()
	if lr.fetcher != nil {
		lr.opts.Fetcher = lr.fetcher()
	}
	ev, err := New(lr.opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.ReportsFailed != 0 {
		t.Fatalf("failures: %+v", sum.Failures)
	}
	out := map[string]*Result{}
	for _, line := range sum.Scores {
		r, err := ReadResult(filepath.Join(lr.opts.OutDir, "reports", line.Task+".json"))
		if err != nil {
			t.Fatal(err)
		}
		out[line.Task] = r
	}
	return out, sum
}

// fixedJudge says every readable source supports every claim citing it.
type fixedJudge struct{}

func (fixedJudge) JudgeSource(_ context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	out := make([]claimtrace.Verdict, len(claims))
	for i := range out {
		out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.9, Evidence: strings.Fields(source)[0]}
	}
	return out, nil
}

var secondGTPage = snapPage{"https://arxiv.org/abs/2002.00002", 200, `<html><head><title>[2002.00002] Widgets at Scale</title>
<meta name="citation_title" content="Widgets at Scale"><meta name="citation_arxiv_id" content="2002.00002"></head>
<body><h1>Widgets at Scale</h1><blockquote>Abstract: We build widgets at the scale of a whole factory and report what breaks first, what scales, and what the builders learned over three years.</blockquote></body></html>`, ""}

const gamingGT = `{"bib_id":"retrieval","title":"Retrieval for Widgets","author":"A","meta_info":{"eprint":"2001.00001"}}
{"bib_id":"scale","title":"Widgets at Scale","author":"C","meta_info":{"eprint":"2002.00002"}}
{"bib_id":"dense","title":"Dense Widget Retrieval","author":"B","meta_info":{"journal":"Journal of Widgets"}}
{"bib_id":"gears","title":"Gear Trains for Widget Assembly Lines","author":"D","meta_info":{"doi":"10.5555/gears.2019.3"}}
`

// gtPair cites the two ground-truth papers of the snapshot.
const gtPair = "Retrieval helps widget builders [1]. Scale changes what breaks [2].\n"

// citing writes a report citing the ground-truth pair (when pair) and
// then, one claim each, the given URLs, as a numbered list of bare URLs.
func citing(pair bool, urls ...string) string {
	var body, refs strings.Builder
	n := 0
	if pair {
		body.WriteString(gtPair)
		refs.WriteString("[1] " + gtPaperURL + "\n[2] " + secondGTPage.url + "\n")
		n = 2
	}
	for _, u := range urls {
		n++
		fmt.Fprintf(&body, "Widgets improved again in study %d [%d].\n", n, n)
		fmt.Fprintf(&refs, "[%d] %s\n", n, u)
	}
	return "# Widgets\n\n" + body.String() + "\n## References\n\n" + refs.String()
}

// TestWallsCountAgainstPrecision is issue 19's scenario 1: two
// ground-truth papers cited alone score 1; ten fabricated URLs on walled
// hosts (403 bot walls, 401, 429, 503, an empty 403, a 200 script shell,
// 402, 451, a captcha) lower strict precision exactly as the same ten
// answering 404 do, to 2/12; the verifiable-only bound keeps 1 for the
// walls, and the report is flagged. A report citing only walls scores 0,
// not null, and stays in the run's mean.
func TestWallsCountAgainstPrecision(t *testing.T) {
	var walls, dead []string
	for i, h := range walledHosts {
		walls = append(walls, fmt.Sprintf("http://%s.example:PORT/papers/%d", h, i))
		dead = append(dead, fmt.Sprintf("http://gone%d.example:PORT/papers/%d", i, i))
	}
	lr := newLiveRun(t, gamingGT, map[string]string{
		"2401.00001": citing(true),
		"2401.00002": citing(true, walls...),
		"2401.00003": citing(true, dead...),
		"2401.00004": citing(false, walls...),
	})
	res, sum := lr.run()
	type fig struct {
		strict, verifiable any
		unverifiable       int
		flagged            bool
	}
	want := map[string]fig{
		"2401.00001": {1.0, 1.0, 0, false},
		"2401.00002": {2.0 / 12, 1.0, 10, true},
		"2401.00003": {2.0 / 12, 2.0 / 12, 0, false},
		"2401.00004": {0.0, nil, 10, true},
	}
	for id, w := range want {
		c := res[id].Citation
		got := fig{deref(c.Precision), deref(c.PrecisionVerifiable), c.Unverifiable, c.Flagged}
		if got != w {
			t.Errorf("%s: got %+v, want %+v (unmatched %+v)", id, got, w, c.Unmatched)
		}
	}
	if sum.Citation.ReportsWithoutRefs != 0 || sum.Citation.ReportsFlagged != 2 {
		t.Errorf("summary: %d without references, %d flagged; want 0 and 2", sum.Citation.ReportsWithoutRefs, sum.Citation.ReportsFlagged)
	}
	if m := (1 + 2.0/12 + 2.0/12 + 0) / 4; sum.Citation.Precision == nil || *sum.Citation.Precision-m > 1e-12 || m-*sum.Citation.Precision > 1e-12 {
		t.Errorf("macro strict precision %v, want %v: the all-walls report stays in the mean at 0", deref(sum.Citation.Precision), m)
	}
	// Walls are no verdict on the cited claims: unknown, never unsupported.
	for _, cl := range res["2401.00004"].Claims {
		for _, v := range cl.Verdicts {
			if v.Label != claimtrace.Unknown {
				t.Errorf("claim %q: verdict %s on a walled source", cl.Text, v.Label)
			}
		}
	}
}

// TestMisattributedCitation is issue 19's scenario 2: an entry naming one
// paper with the URL of a paywalled page whose citation_title is a
// ground-truth paper is not a hit: misattributed, listed with both
// titles, in both precisions. The same page under its own title is a hit.
func TestMisattributedCitation(t *testing.T) {
	stated := "# Widgets\n\nRadar hallucinates widgets [1].\n\n## References\n\n" +
		"[1] Wang, L. Deep radar hallucination networks for widget scenes. Radar Letters, 2023. http://journal.example:PORT/article/9\n"
	honest := "# Widgets\n\nDense retrieval finds widgets [1].\n\n## References\n\n" +
		"[1] Li, B. Dense widget retrieval. Journal of Widgets, 2021. http://journal.example:PORT/article/9\n"
	lr := newLiveRun(t, gamingGT, map[string]string{"2401.00011": stated, "2401.00012": honest})
	res, sum := lr.run()
	c := res["2401.00011"].Citation
	if c.Hits != 0 || c.GTHits != 0 || c.Misattributed != 1 || deref(c.Precision) != 0.0 || deref(c.PrecisionVerifiable) != 0.0 || c.Recall != 0 {
		t.Fatalf("stated another title: %+v, want no hit, 1 misattributed, precision 0, recall 0", c)
	}
	u := c.Unmatched[0]
	if u.Reason != score.ReasonMisattributed || u.Title != "Dense Widget Retrieval" || !strings.Contains(u.StatedTitle, "Deep radar hallucination networks") {
		t.Errorf("unmatched = %+v: want misattributed with both titles", u)
	}
	if h := res["2401.00012"].Citation; h.Hits != 1 || h.Misattributed != 0 {
		t.Errorf("honest title: %+v, want a hit", h)
	}
	if sum.Citation.Misattributed != 1 {
		t.Errorf("summary misattributed = %d, want 1", sum.Citation.Misattributed)
	}
}

// TestEstablishIdentity: before a walled citation is scored unverifiable,
// what the report says of it is tried. Offline, an entry title or a URL
// slug that is a ground-truth paper's is that paper (a hit); an identifier
// in the URL (a PubMed id) makes it a paper; a title nothing confirms
// leaves it unverifiable. Online, the scholarly APIs find the entry's
// title when its year agrees, and look the PubMed id up (its DOI is a
// ground-truth paper's).
func TestEstablishIdentity(t *testing.T) {
	text := "# Widgets\n\nDense retrieval [1]. Assembly lines [2]. A survey of widget sorting [3]. Sorting again [4].\n\n## References\n\n" +
		"[1] Li, B. (2021). Dense Widget Retrieval. http://cloudflare1.example:PORT/x/1\n" +
		"[2] http://akamai1.example:PORT/posts/gear-trains-for-widget-assembly-lines\n" +
		"[3] Okafor, C. (2022). Sorting Widgets by Colour and Weight. http://cloudflare2.example:PORT/x/3\n" +
		"[4] Okafor, C. (2017). Sorting Widgets by Colour and Weight, Revisited. http://cloudflare3.example:PORT/x/5\n"
	// PubMed's own host walls us off (a 403 in the snapshot below).
	pubmed := "# Widgets\n\nClinical widgets [1].\n\n## References\n\n[1] https://pubmed.ncbi.nlm.nih.gov/31452104/\n"
	records := []scholar.Record{
		{DOI: "10.5555/sorting.2022.1", Title: "Sorting Widgets by Colour and Weight", Authors: []string{"Chidi Okafor"}, Published: time.Date(2022, 3, 1, 0, 0, 0, 0, time.UTC)},
		{DOI: "10.5555/gears.2019.3", PMID: "31452104", Title: "Gear Trains for Widget Assembly Lines", Published: time.Date(2019, 8, 1, 0, 0, 0, 0, time.UTC)},
		// Another year: the entry [5] asks for 2017.
		{DOI: "10.5555/sorting.2022.2", Title: "Sorting Widgets by Colour and Weight, Revisited", Authors: []string{"Chidi Okafor"}, Published: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, online := range []bool{false, true} {
		t.Run(fmt.Sprintf("online=%v", online), func(t *testing.T) {
			var lr *liveRun
			if online {
				lr = newLiveRun(t, gamingGT, map[string]string{"2401.00021": text, "2401.00022": pubmed}, records...)
			} else {
				lr = newLiveRun(t, gamingGT, map[string]string{"2401.00021": text, "2401.00022": pubmed})
			}
			// PubMed itself walls us off (a 403 in the snapshot).
			writeSnapshot(t, filepath.Join(lr.dir, "snap"), []snapPage{gtPaperPage, secondGTPage,
				{"https://pubmed.ncbi.nlm.nih.gov/31452104/", 403, `<html><head><title>Just a moment...</title></head><body><p>Checking your browser.</p></body></html>`, ""}})
			snap, err := fetch.OpenSnapshot(filepath.Join(lr.dir, "snap"))
			if err != nil {
				t.Fatal(err)
			}
			lr.fetcher = func() *fetch.Client {
				return fetch.New(fetch.Options{Snapshot: snap, Resolver: lr.resolver, AllowHosts: []string{"127.0.0.1"}, Retries: -1, PerHostRPS: -1,
					Canon: func(u string) string { c, _ := biblio.CanonicalURL(u); return c }})
			}
			res, _ := lr.run()
			c := res["2401.00021"].Citation
			got := map[string]string{}
			for _, m := range c.Matched {
				got[m.URL] = "hit:" + m.BibID
			}
			for _, u := range c.Unmatched {
				got[u.URL] = u.Reason
			}
			p := func(s string) string { return strings.ReplaceAll(s, "PORT", lr.port) }
			want := map[string]string{
				p("http://cloudflare1.example:PORT/x/1"):                                     "hit:dense",
				p("http://akamai1.example:PORT/posts/gear-trains-for-widget-assembly-lines"): "hit:gears",
				p("http://cloudflare2.example:PORT/x/3"):                                     score.ReasonUnverifiable,
				p("http://cloudflare3.example:PORT/x/5"):                                     score.ReasonUnverifiable,
			}
			wantPubMed := score.ReasonNotInGT
			if online {
				// Found by its stated title, its year agreeing.
				want[p("http://cloudflare2.example:PORT/x/3")] = score.ReasonNotInGT
				wantPubMed = "hit:gears"
			}
			if d := diffMaps(want, got); d != "" {
				t.Errorf("citations:\n%s", d)
			}
			pm := res["2401.00022"].Citation
			gotPubMed := ""
			for _, m := range pm.Matched {
				gotPubMed = "hit:" + m.BibID
			}
			for _, u := range pm.Unmatched {
				gotPubMed = u.Reason
			}
			if gotPubMed != wantPubMed {
				t.Errorf("walled PubMed URL: %s, want %s (%+v)", gotPubMed, wantPubMed, pm)
			}
		})
	}
}

// TestWalledFakeIdentifierGivesNoProvenance: a made-up DOI in a
// publisher path behind a wall is a claim, not a verified identity: the
// claim citing it has no complete provenance (PCov 0) and no support
// (PSnd 0). A registered DOI, confirmed by Crossref, completes it.
func TestWalledFakeIdentifierGivesNoProvenance(t *testing.T) {
	text := "# Widgets\n\nGear trains speed assembly up [1].\n\n## References\n\n[1] http://cloudflare.example:PORT/doi/10.5555/gears.2019.3\n"
	for _, online := range []bool{false, true} {
		var lr *liveRun
		if online {
			lr = newLiveRun(t, gamingGT, map[string]string{"2401.00031": text},
				scholar.Record{DOI: "10.5555/gears.2019.3", Title: "Gear Trains for Widget Assembly Lines", Published: time.Date(2019, 8, 1, 0, 0, 0, 0, time.UTC)})
		} else {
			lr = newLiveRun(t, gamingGT, map[string]string{"2401.00031": text})
		}
		res, _ := lr.run()
		a := res["2401.00031"].AAR
		wantPCov := 0.0
		if online {
			wantPCov = 1
		}
		if deref(a.PCov) != wantPCov || deref(a.PSnd) != 0.0 {
			t.Errorf("online=%v: PCov %v, PSnd %v; want %v and 0 (the page was never read)", online, deref(a.PCov), deref(a.PSnd), wantPCov)
		}
		if c := res["2401.00031"].Citation; c.Hits != 1 {
			t.Errorf("online=%v: the DOI in the URL is the citation's identity: %+v", online, c)
		}
	}
}

// TestNoNetworkIsNoVerdict is issue 19's scenario 3 in eval: on a machine
// whose lookups all fail, every source is not fetched, fast; no verdict is
// unsupported, nothing counts as dead, the report is flagged; a rerun with
// the network back fetches them.
func TestNoNetworkIsNoVerdict(t *testing.T) {
	var urls []string
	for i := range 8 {
		urls = append(urls, fmt.Sprintf("http://shell%d.example:PORT/p/%d", i, i))
	}
	urls = append(urls, "http://journal.example:PORT/article/9")
	text := strings.Replace(citing(false, urls...), "## References\n\n", "## References\n\n[10] \"Widgets at Scale.\" Widget Press, 2020.\n", 1) +
		"\nAnd a book says so too [10].\n"
	lr := newLiveRun(t, gamingGT, map[string]string{"2401.00041": text},
		scholar.Record{DOI: "10.5555/scale.2020", Title: "Widgets at Scale", Published: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	lr.resolver.down.Store(true)
	start := time.Now()
	res, sum := lr.run()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v without a network", d)
	}
	r := res["2401.00041"]
	c := r.Citation
	// The title-only book is scored by its title (a ground-truth hit). Its
	// lookup goes to the APIs if it runs before the outage is known (they
	// answer here), else it is not made and the book is fetched again too.
	book := 0
	for _, s := range r.Sources {
		if s.Work.Title == "Widgets at Scale" && !s.Work.Resolved {
			book = 1
		}
	}
	if c.NotFetched != 9 || c.Unresolvable != 0 || c.Unverifiable != 0 || deref(c.Precision) != 1.0 || c.GTHits != 1 || !c.Flagged || len(r.NotFetched) != 9+book {
		t.Errorf("without network: %+v (not fetched %v), want 9 not fetched, nothing dead, the book a hit, flagged", c, r.NotFetched)
	}
	for _, cl := range r.Claims {
		for _, v := range cl.Verdicts {
			if strings.HasPrefix(v.URL, "title:") {
				continue // the book: no text to judge, network or not
			}
			if v.Label != claimtrace.Unknown || !strings.Contains(v.Reason, "no network") {
				t.Errorf("claim %q: verdict %s (%s), want unknown: not fetched", cl.Text, v.Label, v.Reason)
			}
		}
	}
	if sum.Citation.ReportsNotFetched != 1 || sum.Citation.ReportsWithoutRefs != 0 {
		t.Errorf("summary: %+v", sum.Citation.CitationSummary)
	}
	// The network is back: a plain rerun fetches what was not fetched.
	lr.resolver.down.Store(false)
	res, _ = lr.run()
	c = res["2401.00041"].Citation
	if c.NotFetched != 0 || c.Unverifiable != 8 || c.Misattributed != 0 || len(res["2401.00041"].NotFetched) != 0 {
		t.Errorf("rerun with network: %+v, want the 8 shells unverifiable and the journal page read", c)
	}
	for _, s := range res["2401.00041"].Sources {
		if s.Work.Title == "Widgets at Scale" && !s.Work.Resolved {
			t.Errorf("rerun with network: the book is not verified: %+v", s.Work)
		}
	}
}

// TestFetchTimeLimit: the run's bound on waiting for sources cuts a slow
// host short: not fetched, not dead.
func TestFetchTimeLimit(t *testing.T) {
	lr := newLiveRun(t, gamingGT, map[string]string{"2401.00051": citing(true, "http://slow.example:PORT/p/1")})
	lr.opts.FetchTimeout = 300 * time.Millisecond
	var events []SourceEvent
	lr.opts.SourceProgress = func(e SourceEvent) { events = append(events, e) }
	res, _ := lr.run()
	c := res["2401.00051"].Citation
	if c.NotFetched != 1 || c.Unresolvable != 0 || deref(c.Precision) != 1.0 {
		t.Errorf("slow host: %+v, want not fetched and precision 1 over the rest", c)
	}
	if len(events) != 3 || events[2].Done != 3 || events[2].Total != 3 {
		t.Errorf("progress events %+v, want 3 ending at 3/3", events)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
	}
	sort.Strings(kinds)
	if strings.Join(kinds, ",") != "not_fetched,paper,paper" {
		t.Errorf("progress kinds %v", kinds)
	}
}

// diffMaps lists the keys whose values differ.
func diffMaps(want, got map[string]string) string {
	var b strings.Builder
	for k, v := range want {
		if got[k] != v {
			fmt.Fprintf(&b, "  %s: got %q, want %q\n", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "  %s: got %q, not expected\n", k, v)
		}
	}
	return b.String()
}

// downFetcher is a fetcher that knows the network is down.
type downFetcher struct{}

func (downFetcher) Fetch(_ context.Context, raw string) (*fetch.Page, error) {
	return &fetch.Page{URL: raw}, fmt.Errorf("fetch %s: %w: %w", raw, claimtrace.ErrNoNetwork, claimtrace.ErrUnreachable)
}
func (downFetcher) NetworkDown() bool { return true }

// countingScholar answers every lookup and counts them.
type countingScholar struct{ n atomic.Int32 }

func (s *countingScholar) ArXiv(context.Context, ...string) (map[string]scholar.Record, error) {
	s.n.Add(1)
	return nil, nil
}
func (s *countingScholar) CrossrefDOI(context.Context, string) (scholar.Record, error) {
	s.n.Add(1)
	return scholar.Record{}, nil
}
func (s *countingScholar) SearchTitle(context.Context, string) ([]scholar.Record, error) {
	s.n.Add(1)
	return nil, nil
}
func (s *countingScholar) WorkByID(context.Context, string, string) (scholar.Record, error) {
	s.n.Add(1)
	return scholar.Record{}, nil
}

// TestNoLookupsWithoutNetwork: while the fetcher knows the network is
// down, a URL is not fetched and a title is not looked up; neither result
// is stored, so the next run does both.
func TestNoLookupsWithoutNetwork(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sch := &countingScholar{}
	ev, err := New(Options{Mode: "live", Store: st, Fetcher: downFetcher{}, Scholar: sch})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []claimtrace.Citation{{Title: "Widgets at Scale"}, {URL: "https://journal.example/a/1"}, {DOI: "10.5555/widgets.1"}} {
		tgt := targetOf(c)
		r, err := ev.source(context.Background(), tgt)
		if err != nil {
			t.Fatal(err)
		}
		if !r.notFetched && !r.lookupSkipped {
			t.Errorf("%+v: resolved as if the network worked: %+v", c, r.Work)
		}
		if _, ok, _ := st.GetUnit(context.Background(), ev.RunID(), unitSource, tgt.Key); ok {
			t.Errorf("%+v: stored; the next run would not try again", c)
		}
	}
	if sch.n.Load() != 0 {
		t.Errorf("%d scholarly lookups without a network", sch.n.Load())
	}
}
