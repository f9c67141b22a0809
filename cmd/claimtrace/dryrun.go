package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/report"
)

// errDry is what a dry-run model answers if anything tries to send it a
// request: dry runs build and estimate requests, they never send them.
var errDry = errors.New("dry run: no model call is made")

// refusingModel is the model behind dry-run clients.
type refusingModel struct{}

func (refusingModel) Generate(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errDry
}

// dryLLM returns a client for spec that prices and estimates requests but
// never sends one, so a dry run needs no key.
func (a *app) dryLLM(spec string) (*llm.Client, error) {
	ep, opts, err := a.cfg.endpoint(spec)
	if err != nil {
		return nil, err
	}
	return llm.NewClient(ep, refusingModel{}, opts), nil
}

// tally accumulates the estimated requests of a dry run by stage.
type tally struct {
	mu     sync.Mutex
	stages map[string]*stageEstimate
}

type stageEstimate struct {
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Cost         float64 `json:"cost_usd"`
	Unpriced     bool    `json:"unpriced,omitempty"`
}

func (t *tally) add(stage string, c *llm.Client, reqs ...llm.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stages == nil {
		t.stages = map[string]*stageEstimate{}
	}
	s := t.stages[stage]
	if s == nil {
		s = &stageEstimate{}
		t.stages[stage] = s
	}
	for _, r := range reqs {
		e := c.Estimate(r)
		s.Calls++
		s.InputTokens += e.InputTokens
		s.OutputTokens += e.OutputTokens
		s.Cost += e.Cost
		s.Unpriced = s.Unpriced || !e.Priced
	}
}

// dryJudge estimates what the batched LLM judge would send for a source.
type dryJudge struct {
	j *judge.LLMJudge
	c *llm.Client
	t *tally
}

func (d dryJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	reqs, err := d.j.Requests(source, claims)
	if err != nil {
		return nil, err
	}
	d.t.add(judge.StageJudge, d.c, reqs...)
	return dryVerdicts(len(claims)), nil
}

// dryParity estimates the paper's two calls per (claim, source) pair: the
// A.4.3 match prompt with up to 256 KiB of source, then the A.4.4 check.
type dryParity struct {
	c *llm.Client
	t *tally
}

func (d dryParity) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	src := source
	if len(src) > judge.ParitySourceBytes {
		src = src[:judge.ParitySourceBytes]
	}
	for _, cl := range claims {
		d.t.add(judge.StageMatch, d.c, llm.Request{Messages: []llm.Message{llm.UserMessage(cl + "\n" + src)}, MaxTokens: 8192})
		d.t.add(judge.StageVerify, d.c, llm.Request{Messages: []llm.Message{llm.UserMessage(cl + "\n" + cl)}, MaxTokens: 64})
	}
	return dryVerdicts(len(claims)), nil
}

func dryVerdicts(n int) []claimtrace.Verdict {
	out := make([]claimtrace.Verdict, n)
	for i := range out {
		out[i] = claimtrace.Verdict{Label: claimtrace.Unknown, Reason: "dry run"}
	}
	return out
}

// dryEntailer estimates the two-way entailment calls and finds nothing.
type dryEntailer struct {
	e *judge.LLMEntailer
	c *llm.Client
	t *tally
}

func (d dryEntailer) Entail(ctx context.Context, premise, hypothesis string) (prov.Entailment, error) {
	r, err := d.e.Request(premise, hypothesis)
	if err != nil {
		return prov.Entailment{}, err
	}
	d.t.add(judge.StageEntail, d.c, r)
	return prov.Entailment{Neutral: 1}, nil
}

// dryRun turns the model-backed options into estimators. Check-worthiness
// decisions fall back to the offline rules so that the fact-check estimate
// has claims to count.
func (v verifyFlags) dryRun(ctx context.Context, m *models, o *eval.Options, t *tally) error {
	if m == nil {
		return nil
	}
	if v.judge != "offline" && v.judge != "none" {
		c, _ := m.client(ctx, v.judge)
		if v.prompts == judge.PromptsReportBench {
			o.Judge = dryParity{c, t}
		} else if j, ok := o.Judge.(*judge.LLMJudge); ok {
			o.Judge = dryJudge{j, c, t}
		}
	}
	if v.contradictions != "offline" && v.contradictions != "none" {
		c, _ := m.client(ctx, v.contradictions)
		e, err := judge.NewLLMEntailer(c)
		if err != nil {
			return err
		}
		o.Detector = prov.TwoWay{Entailer: dryEntailer{e, c, t}}
	}
	if v.metadataModel != "" {
		c, _ := m.client(ctx, v.metadataModel)
		r, err := judge.NewLLMMetadata(c)
		if err != nil {
			return err
		}
		o.Metadata = metadataRung(func(_ context.Context, p judge.MetadataPage) (judge.MetadataGuess, error) {
			req, err := r.Request(p)
			if err != nil {
				return judge.MetadataGuess{}, err
			}
			t.add(judge.StageMetadata, c, req)
			return judge.MetadataGuess{Note: "dry run"}, nil
		})
	}
	if v.checkWorthy != "offline" && v.prompts == judge.PromptsReportBench {
		c, _ := m.client(ctx, v.checkWorthy)
		j, err := judge.NewReportBenchJudge(c)
		if err != nil {
			return err
		}
		o.ExtractNonCited = extractNonCited(func(_ context.Context, text string, cited []judge.CitedStatement) ([]string, error) {
			reqs, err := j.ExtractNonCitedRequests(text, cited)
			if err != nil {
				return nil, err
			}
			t.add(judge.StageExtract, c, reqs...)
			// What the model would extract is unknown before it runs; the
			// offline filter's pick of the non-cited claims stands in for
			// it, so the fact-checks are estimated too.
			var guess []string
			for _, cl := range report.Parse(text).Claims {
				if ok, _ := judge.CheckWorthy(cl.Text); ok && !cl.Cited() {
					guess = append(guess, cl.Text)
				}
			}
			return guess, nil
		})
	} else if v.checkWorthy != "offline" {
		c, _ := m.client(ctx, v.checkWorthy)
		w, err := judge.NewLLMCheckWorthy(c, judge.CheckWorthyOptions{})
		if err != nil {
			return err
		}
		o.ClassifyCheckWorthy = func(ctx context.Context, claims []string) ([]bool, []string, error) {
			reqs, err := w.Requests(claims)
			if err != nil {
				return nil, nil, err
			}
			t.add(judge.StageCheckWorthy, c, reqs...)
			ok := make([]bool, len(claims))
			why := make([]string, len(claims))
			for i, cl := range claims {
				ok[i], why[i] = judge.CheckWorthy(cl)
			}
			return ok, why, nil
		}
	}
	if o.FactCheck != nil {
		specs := splitList(v.factCheckers)
		if len(specs) == 0 {
			specs = m.a.cfg.LLM.FactCheckers
		}
		type checker struct {
			w *judge.WebChecker
			c *llm.Client
		}
		var checkers []checker
		for _, spec := range specs {
			model, _, _ := strings.Cut(spec, "@")
			c, _ := m.client(ctx, model)
			w, err := judge.NewWebChecker(c, judge.FactCheckOptions{Prompts: v.prompts})
			if err != nil {
				return err
			}
			checkers = append(checkers, checker{w, c})
		}
		o.FactCheck = func(ctx context.Context, in eval.FactInput) (claimtrace.Fact, error) {
			for _, ch := range checkers {
				for vote := 1; vote <= v.votes; vote++ {
					r, err := ch.w.Request(judge.FactQuery{Claim: in.Claim, Context: in.Context, Cutoff: in.Cutoff, Vote: vote})
					if err != nil {
						return claimtrace.Fact{}, err
					}
					t.add(judge.StageFactCheck, ch.c, r)
				}
			}
			return claimtrace.Fact{Label: claimtrace.FactUndecided, Votes: []claimtrace.Vote{}}, nil
		}
	}
	return nil
}

// referenceCalls estimates the released ReportBench code's LLM calls for the
// same reports (REFERENCE.md A2): 2B + 2C + U + 6N, with B blocks of 16 KiB,
// C (claim, URL) pairs, U unique URLs, N check-worthy non-cited claims.
func referenceCalls(results []*eval.Result) (calls, blocks, pairs, urls, nonCited int) {
	for _, r := range results {
		if r == nil {
			continue
		}
		b := int(math.Ceil(float64(r.Stats.Bytes) / 16384))
		blocks += b
		urls += r.Stats.DistinctURLs
		for _, c := range r.Claims {
			pairs += len(c.Citations)
		}
		if r.NonCited != nil {
			nonCited += r.NonCited.CheckWorthy
		}
	}
	return 2*blocks + 2*pairs + urls + 6*nonCited, blocks, pairs, urls, nonCited
}

// printDryRun prints what a run would cost.
func printDryRun(w io.Writer, t *tally, results []*eval.Result) {
	names := make([]string, 0, len(t.stages))
	for k := range t.stages {
		names = append(names, k)
	}
	sort.Strings(names)
	var total stageEstimate
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tcalls\tinput tokens\toutput tokens (max)\tcost (USD)\t")
	for _, n := range names {
		s := t.stages[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", n, s.Calls, s.InputTokens, s.OutputTokens, usd(s))
		total.Calls += s.Calls
		total.InputTokens += s.InputTokens
		total.OutputTokens += s.OutputTokens
		total.Cost += s.Cost
		total.Unpriced = total.Unpriced || s.Unpriced
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%s\t\n", total.Calls, total.InputTokens, total.OutputTokens, usd(&total))
	tw.Flush()
	ref, b, c, u, n := referenceCalls(results)
	fmt.Fprintf(w, "\nthe released ReportBench code would make about %d calls for these reports (2B + 2C + U + 6N with B=%d blocks, C=%d claim–URL pairs, U=%d URLs, N=%d check-worthy non-cited claims)\n",
		ref, b, c, u, n)
	fmt.Fprintln(w, "estimates count input as bytes/4 and output as each request's token cap; cached answers would cost nothing. Nothing was sent.")
}

func usd(s *stageEstimate) string {
	if s.Unpriced && s.Cost == 0 {
		return "unpriced"
	}
	return fmt.Sprintf("%.4f", s.Cost)
}
