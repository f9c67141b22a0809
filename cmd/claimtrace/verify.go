package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/entail"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/identify"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/store"
)

// verifyFlags choose how statements are verified and how provenance is
// scored, for eval, audit and demo.
type verifyFlags struct {
	judge          string
	calibration    string
	prompts        string
	tau            float64
	partialWeight  float64
	contradictions string
	checkWorthy    string
	factCheck      bool
	factCheckers   []string
	votes          int
	earlyStop      bool
	factBatch      int
	// worthyRate is --check-worthy-rate (set: given); dryWorthy the rate a
	// dry run settled on (dryWorthyRate).
	worthyRate    flagValue[float64]
	dryWorthy     worthyRate
	metadataModel string
	llm           llmFlags
}

func (v *verifyFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&v.judge, "judge", "offline", "cited-statement judge: offline (lexical, calibrated, no network), a model (openai:gpt-4o, a configured name), minicheck:MODEL (Bespoke-MiniCheck on an OpenAI-compatible server) or none")
	fs.StringVar(&v.calibration, "calibration", "", calibrationHelp)
	fs.StringVar(&v.prompts, "prompts", judge.PromptsClaimtrace, "model prompts: claimtrace (batched per source, passages first) or reportbench (the paper's A.4 prompts, one pair per call, for parity studies)")
	fs.Float64Var(&v.tau, "tau", prov.DefaultTau, "PSnd threshold τ: a citation is sound when its strength ν > τ")
	fs.Float64Var(&v.partialWeight, "partial-weight", 0.5, "what a partial verdict counts in the match rate")
	fs.StringVar(&v.contradictions, "contradictions", "offline", "find contradictions between the sources a report read (CTran): offline, a model (two-way entailment) or none")
	fs.StringVar(&v.checkWorthy, "check-worthy", "offline", "which non-cited claims are worth fact-checking: offline (rules) or a model")
	fs.BoolVar(&v.factCheck, "fact-check", false, "fact-check check-worthy non-cited claims with the configured fact-checkers (llm.fact_checkers)")
	fs.StringSliceVar(&v.factCheckers, "fact-checkers", nil, "fact-check models, comma-separated: MODEL uses the provider's own web search, MODEL@SEARCH (serpapi, brave, tavily, searxng) any model with a search API (implies --fact-check; default: llm.fact_checkers, Gemini 2.5 Pro and Flash)")
	fs.IntVar(&v.votes, "votes", 3, "votes per fact-checker (the paper: 2 models × 3 votes)")
	fs.BoolVar(&v.earlyStop, "early-stop", true, "stop voting on a statement once the votes left cannot change its majority: the label is the full vote's, in 4–5 calls instead of 6 for most statements (--early-stop=false casts every vote)")
	v.worthyRate.parse = func(s string) (float64, error) {
		r, err := strconv.ParseFloat(s, 64)
		if err == nil && (r < 0 || r > 1 || r != r) {
			err = fmt.Errorf("want a share from 0 to 1")
		}
		return r, err
	}
	fs.Var(&v.worthyRate, "check-worthy-rate", "with --dry-run and a check-worthiness model: the share of non-cited claims it calls check-worthy, 0 to 1 (default: the share it called in the store's earlier runs, else 0.3)")
	fs.IntVar(&v.factBatch, "fact-batch", 5, "check-worthy statements of a report each fact-checker answers in one call (1: one a call, as the paper; the paper's prompts always check one)")
	fs.StringVar(&v.metadataModel, "metadata-model", "", "last rung of the metadata ladder: a model reads fetched pages that look scholarly but that no identifier, meta tag or scholarly API identified (titles and ids it gives are kept only when written in the page)")
	v.llm.add(fs)
}

func defaultVerify() verifyFlags {
	return verifyFlags{judge: "offline", prompts: judge.PromptsClaimtrace, tau: prov.DefaultTau, partialWeight: 0.5,
		contradictions: "offline", checkWorthy: "offline", votes: 3, earlyStop: true, factBatch: 5}
}

// usesModels reports whether any stage calls a model.
func (v verifyFlags) usesModels() bool {
	return (v.judge != "offline" && v.judge != "none") || (v.contradictions != "offline" && v.contradictions != "none") ||
		v.checkWorthy != "offline" || v.factCheck || len(v.factCheckers) > 0 || v.metadataModel != ""
}

// models wires the model-backed stages: one client per model spec, shared by
// the stages that use it (so its rate limits hold), all recording into the
// store's ledger under the run, answering from its cache and sharing one
// budget. In a dry run every client prices what it would send into one
// llm.DryRun and sends nothing.
type models struct {
	a       *app
	run     llmRun
	ledger  *runLedger
	clients map[string]*llm.Client
}

func (m *models) client(ctx context.Context, spec string) (*llm.Client, error) {
	if c, ok := m.clients[spec]; ok {
		return c, nil
	}
	c, err := m.a.openLLM(ctx, spec, m.run)
	if err != nil {
		return nil, err
	}
	m.clients[spec] = c
	return c, nil
}

// ceiling returns the calls the run's clients may have in flight
// together (0 without models): what the pipeline's judging bound must
// allow, so that the clients' own limits pace the run.
func (m *models) ceiling() int {
	if m == nil {
		return 0
	}
	n := 0
	for _, c := range m.clients {
		n += c.Limits().Concurrency
	}
	return n
}

// Totals sums the calls of every client.
func (m *models) Totals() llm.Totals {
	var t llm.Totals
	for _, c := range m.clients {
		t.Merge(c.Totals())
	}
	return t
}

// runLedger stamps each call with the run id, known once the evaluation is
// created, and records it in the store.
type runLedger struct {
	st  *store.Store
	run string
}

func (l *runLedger) Record(ctx context.Context, c claimtrace.LLMCall) error {
	if c.Run == "" {
		c.Run = l.run
	}
	return l.st.Record(ctx, c)
}

// apply sets the verification options of an evaluation, with the run
// configuration rc (resolved by app.runConfig from these flags). The
// returned models (nil when no stage uses one) must get the run id once it
// is known. A dry run wires the same stages; its clients price and answer
// neutrally (dryAnswer), its searches return stand-in results, and
// non-cited statements extracted by a model are guessed by the offline
// filter so that their fact-checks are priced too.
func (v verifyFlags) apply(ctx context.Context, a *app, st *store.Store, o *eval.Options, rc RunConfig) (*models, error) {
	o.Tau, o.PartialWeight = v.tau, v.partialWeight
	o.CheckWorthy = factcheck.CheckWorthy
	var m *models
	if v.usesModels() {
		ledger := &runLedger{st: st}
		run := rc.llmRun("", st.LLMCache(), ledger)
		if run.Dry != nil {
			run.Dry.Answer = dryAnswers{worthy: v.dryWorthy.Rate}.answer
		}
		m = &models{a: a, run: run, ledger: ledger, clients: map[string]*llm.Client{}}
	}
	switch v.judge {
	case "none":
	case "offline":
		j, _, err := newJudge("offline", v.calibration)
		if err != nil {
			return nil, err
		}
		o.Judge, o.JudgeName = j, "offline"
		if v.calibration != "" && v.calibration != "default" { // the default is the plain offline judge's run
			o.JudgeName += "+" + v.calibration
		}
	default:
		if err := checkJudgeFlags(v.judge, v.calibration, v.prompts); err != nil {
			return nil, err
		}
		if model, ok := miniCheckModel(v.judge); ok {
			c, err := m.client(ctx, model)
			if err != nil {
				return nil, err
			}
			j, err := judge.NewMiniCheck(c, judge.MiniCheckOptions{})
			if err != nil {
				return nil, err
			}
			o.Judge, o.JudgeName = j, j.Name()
			break
		}
		c, err := m.client(ctx, v.judge)
		if err != nil {
			return nil, err
		}
		if v.prompts == judge.PromptsReportBench {
			j, err := judge.NewReportBenchJudge(c)
			if err != nil {
				return nil, err
			}
			o.Judge, o.JudgeName = j, j.Name()
		} else {
			var opt judge.LLMJudgeOptions
			if _, eo, err := a.cfg.endpoint(v.judge); err == nil && eo.Temperature != nil {
				opt.Temperature = eo.Temperature
			}
			j, err := judge.NewLLMJudge(c, opt)
			if err != nil {
				return nil, err
			}
			o.Judge, o.JudgeName = j, j.Name()
		}
	}
	switch v.contradictions {
	case "none":
	case "offline":
		o.Detector = prov.Offline{}
	default:
		c, err := m.client(ctx, v.contradictions)
		if err != nil {
			return nil, err
		}
		e, err := entail.NewLLM(c)
		if err != nil {
			return nil, err
		}
		o.Detector = prov.TwoWay{Entailer: e}
	}
	if v.metadataModel != "" {
		c, err := m.client(ctx, v.metadataModel)
		if err != nil {
			return nil, err
		}
		r, err := identify.NewLLM(c)
		if err != nil {
			return nil, err
		}
		o.Metadata, o.MetadataName = metadataRung(r.Identify), r.Name()
	}
	if v.checkWorthy != "offline" && v.prompts == judge.PromptsReportBench {
		// Parity: the paper extracts the non-cited statements from the
		// whole report (A.4.2) rather than classifying each claim.
		c, err := m.client(ctx, v.checkWorthy)
		if err != nil {
			return nil, err
		}
		j, err := judge.NewReportBenchJudge(c)
		if err != nil {
			return nil, err
		}
		o.ExtractNonCited = extractNonCited(j.ExtractNonCited)
		if rc.DryRun {
			o.ExtractNonCited = dryExtract(o.ExtractNonCited, v.dryWorthy.Rate)
		}
	} else if v.checkWorthy != "offline" {
		c, err := m.client(ctx, v.checkWorthy)
		if err != nil {
			return nil, err
		}
		w, err := factcheck.NewLLMCheckWorthy(c, factcheck.CheckWorthyOptions{})
		if err != nil {
			return nil, err
		}
		o.ClassifyCheckWorthy = w.ClassifyCheckWorthy
	}
	if v.factCheck || len(v.factCheckers) > 0 {
		specs := splitList(v.factCheckers)
		if len(specs) == 0 {
			specs = a.cfg.LLM.FactCheckers
		}
		if len(specs) == 0 {
			return nil, fmt.Errorf("--fact-check: no fact-checkers; pass --fact-checkers MODEL,MODEL or set llm.fact_checkers: %w", claimtrace.ErrInvalid)
		}
		if v.votes < 1 {
			return nil, fmt.Errorf("--votes %d: want at least 1: %w", v.votes, claimtrace.ErrInvalid)
		}
		if v.factBatch < 1 {
			return nil, fmt.Errorf("--fact-batch %d: want at least 1: %w", v.factBatch, claimtrace.ErrInvalid)
		}
		batch := v.factBatch
		if v.prompts == judge.PromptsReportBench {
			batch = 1 // the paper's prompt checks one statement a call
		}
		opt := factcheck.Options{Prompts: v.prompts}
		ens := factcheck.Ensemble{Votes: v.votes, EarlyStop: v.earlyStop, Batch: batch}
		for _, spec := range specs {
			model, engine, withSearch := strings.Cut(spec, "@")
			c, err := m.client(ctx, model)
			if err != nil {
				return nil, err
			}
			if !withSearch {
				w, err := factcheck.NewWebChecker(c, opt)
				if err != nil {
					return nil, err
				}
				ens.Checkers = append(ens.Checkers, w)
				continue
			}
			var s search.Searcher
			if rc.DryRun {
				if s, err = drySearcher(engine); err != nil {
					return nil, fmt.Errorf("fact-checker %s: %w", spec, err)
				}
			} else {
				so := a.searchOptions(engine)
				if s, err = search.NewSearcher(engine, so); err != nil {
					return nil, fmt.Errorf("fact-checker %s: %w", spec, err)
				}
				cs := search.NewCachedSearcher(s, st.LLMCache(), engine+" "+so.BaseURL)
				cs.Refresh = rc.NoCache
				s = cs
			}
			sc, err := factcheck.NewSearchChecker(c, searchAdapter{s}, engine, a.cfg.Search.Results, opt)
			if err != nil {
				return nil, fmt.Errorf("fact-checker %s: %w", spec, err)
			}
			ens.Checkers = append(ens.Checkers, sc)
		}
		o.FactCheck = func(ctx context.Context, in eval.FactInput) (claimtrace.Fact, error) {
			return ens.Check(ctx, factcheck.Query{Claim: in.Claim, Context: in.Context, Cutoff: in.Cutoff})
		}
		o.FactCheckName = fmt.Sprintf("%s×%d", strings.Join(specs, "+"), v.votes)
		if v.earlyStop {
			o.FactCheckName += "+early-stop"
		}
		if batch > 1 {
			o.FactCheckName += fmt.Sprintf("+batch%d", batch)
			o.FactBatch = batch
			o.FactCheckAll = func(ctx context.Context, in []eval.FactInput) ([]claimtrace.Fact, []error) {
				qs := make([]factcheck.Query, len(in))
				for i, x := range in {
					qs[i] = factcheck.Query{Claim: x.Claim, Context: x.Context, Cutoff: x.Cutoff}
				}
				return ens.CheckAll(ctx, qs)
			}
		}
	}
	return m, nil
}

// searchAdapter gives the fact-checkers a search client.
type searchAdapter struct{ s search.Searcher }

func (a searchAdapter) Search(ctx context.Context, q string, n int) ([]factcheck.SearchResult, error) {
	rs, err := a.s.Search(ctx, q, n)
	if err != nil {
		return nil, err
	}
	out := make([]factcheck.SearchResult, len(rs))
	for i, r := range rs {
		out[i] = factcheck.SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Snippet}
	}
	return out, nil
}

// setRun records the run id that every model call is accounted under.
func (m *models) setRun(run string) {
	if m != nil {
		m.ledger.run = run
	}
}

// dryRun returns the recorder of a dry run's requests (nil: not dry, or
// no stage calls a model).
func (m *models) dryRun() *llm.DryRun {
	if m == nil {
		return nil
	}
	return m.run.Dry
}

// metadataRung adapts the model metadata reader (identify.LLM) to the pipeline's rung.
func metadataRung(read func(context.Context, identify.Page) (identify.Guess, error)) func(context.Context, eval.MetadataPage) (eval.MetadataGuess, error) {
	return func(ctx context.Context, p eval.MetadataPage) (eval.MetadataGuess, error) {
		g, err := read(ctx, identify.Page{URL: p.URL, PageTitle: p.PageTitle, Text: p.Text})
		return eval.MetadataGuess{Scholarly: g.Scholarly, Title: g.Title, Authors: g.Authors, DOI: g.DOI, ArXivID: g.ArXivID, Note: g.Note}, err
	}
}

// extractNonCited adapts the parity extraction (A.4.2) to the pipeline.
func extractNonCited(extract func(context.Context, string, []judge.CitedStatement) ([]string, error)) func(context.Context, string, []eval.CitedStatement) ([]string, error) {
	return func(ctx context.Context, report string, cited []eval.CitedStatement) ([]string, error) {
		cs := make([]judge.CitedStatement, len(cited))
		for i, c := range cited {
			cs[i] = judge.CitedStatement{Statement: c.Statement, URL: c.URL}
		}
		return extract(ctx, report, cs)
	}
}
