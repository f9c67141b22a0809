// Command benchtool measures what `claimtrace eval` with model judges costs
// and how long it takes, against a counting fake provider instead of a
// paid one (issue 21): an OpenAI-compatible chat completions server that
// answers every prompt validly after a fixed latency (400 ms by default)
// and a SearXNG-style search endpoint (300 ms), optionally enforcing
// requests- and tokens-per-minute limits with OpenAI's 429 and
// x-ratelimit-* headers.
//
// It builds a fixture from the shared real reports (../shared/data: Onyx
// and OpenAI deep-research reports, a snapshot page of 10–30 KB of real
// page text for every URL they cite), runs the claimtrace binary given by
// --bin on it as a user would (the cited judge, the check-worthiness
// classifier and two fact-checkers with a search API, all on the fake),
// and prints calls, tokens, wall clock, peak memory and CPU of the run,
// the released ReportBench code's call count for the same reports
// (eval.ReferenceEstimate, with N the model's check-worthy count) and
// the ratio between the two, and the dry run's estimate against the real
// count. Running it with the binary of an older commit gives the "before"
// figures.
//
//	go run ./internal/eval/benchtool --n 10 --set mixed
//	go run ./internal/eval/benchtool --n 100 --set onyx --bin /tmp/claimtrace-before --json
//	go run ./internal/eval/benchtool --n 20 --rpm 300
//	go run ./internal/eval/benchtool --n 20 --work W --eval-args=--early-stop=false
//	go run ./internal/eval/benchtool --replay W/out
//
// docs/benchmark.md has the figures and the commands that produced them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// options are benchtool's flags.
type options struct {
	bin, data, set, work, label, config string
	n                                   int
	latency, searchLatency              time.Duration
	rpm, tpm                            int
	checkWorthyRate                     float64
	dryRun, asJSON                      bool
	evalArgs                            string
	replay                              string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("benchtool", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "", "claimtrace binary to measure (default: build ./cmd/claimtrace into the work directory)")
	fs.StringVar(&o.data, "data", sharedtest.Root(), "the shared data directory")
	fs.StringVar(&o.set, "set", "onyx", "reports: onyx (Onyx deep research, ≤100), openai (OpenAI deep research, ≤8) or mixed (half each)")
	fs.IntVar(&o.n, "n", 10, "number of reports")
	fs.StringVar(&o.work, "work", "", "work directory (default: a temporary one, removed afterwards)")
	fs.StringVar(&o.label, "label", "", "name of this run in the output")
	fs.StringVar(&o.config, "config", "", "claimtrace config file for the run (default: none, the built-in defaults)")
	fs.DurationVar(&o.latency, "latency", 400*time.Millisecond, "time the fake takes to answer a model call")
	fs.DurationVar(&o.searchLatency, "search-latency", 300*time.Millisecond, "time the fake takes to answer a search")
	fs.IntVar(&o.rpm, "rpm", 0, "the fake account's requests per minute per model (0: unlimited)")
	fs.IntVar(&o.tpm, "tpm", 0, "the fake account's tokens per minute per model (0: unlimited)")
	fs.Float64Var(&o.checkWorthyRate, "check-worthy-rate", 0.3, "share of the claims the fake classifier calls check-worthy")
	fs.BoolVar(&o.dryRun, "dry-run", true, "also run eval --dry-run (before the run, on an empty store, and after it, on the run's store) and compare its estimate")
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	fs.StringVar(&o.evalArgs, "eval-args", "", "extra arguments for claimtrace eval, space-separated")
	fs.StringVar(&o.replay, "replay", "", "instead of running: replay the early stop on the votes recorded in this eval --out folder of a run with every vote cast (--eval-args=--early-stop=false), and compare its labels with the full vote's")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: benchtool [flags]\n\nMeasure claimtrace eval with model judges against a counting fake provider.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.replay != "" {
		r, err := replay(ctx, o.replay)
		if err != nil {
			return err
		}
		if o.asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
		r.print(stdout)
		return nil
	}
	if o.data == "" {
		return errors.New("no shared data: pass --data DIR (the ../shared/data folder)")
	}
	if o.n < 1 {
		return fmt.Errorf("--n %d: want at least 1", o.n)
	}
	if o.work == "" {
		dir, err := os.MkdirTemp("", "claimtrace-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.work = dir
	}
	if o.bin == "" {
		o.bin = filepath.Join(o.work, "claimtrace")
		build := exec.CommandContext(ctx, "go", "build", "-o", o.bin, "./cmd/claimtrace")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build claimtrace: %w", err)
		}
	}
	res, err := measure(ctx, o)
	if err != nil {
		return err
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	res.print(stdout)
	return nil
}

// result is one measured run.
type result struct {
	Label   string `json:"label"`
	Bin     string `json:"bin"`
	Set     string `json:"set"`
	Reports int    `json:"reports"`
	// Scored and Failed are what eval says it scored.
	Scored int `json:"scored"`
	Failed int `json:"failed"`
	Pages  int `json:"pages"`
	// PageKB is the pages' mean size.
	PageKB float64 `json:"page_kb"`

	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	PeakRSSMB   float64 `json:"peak_rss_mb"`

	// Server is the fake's count; Ledger the run's own (summary.json llm).
	Server fakeStats       `json:"server"`
	Ledger eval.LLMSection `json:"ledger"`

	// CallsPerReport and PromptTokensPerReport: median, min, max over the
	// reports, from the server's counts.
	CallsPerReport        [3]float64 `json:"calls_per_report"`
	PromptTokensPerReport [3]float64 `json:"prompt_tokens_per_report"`
	// Reference is the released code's call count for the same reports;
	// Ratio our calls over it per report (median, min, max).
	Reference eval.ReferenceCalls `json:"reference"`
	Ratio     [3]float64          `json:"ratio"`
	// CheckWorthy is the model's check-worthy count (N).
	CheckWorthy int `json:"check_worthy"`

	// DryFresh and DryAfter are the dry run's estimated calls on an empty
	// store and on the run's store (where measured rates exist).
	DryFresh int `json:"dry_fresh,omitempty"`
	DryAfter int `json:"dry_after,omitempty"`

	// RateLimit is the share of the account's requests per minute (--rpm)
	// the run reached: the most requests one model had in any minute.
	RateLimit float64  `json:"rate_limit_share,omitempty"`
	Args      []string `json:"args"`
}

// measure builds the fixture, starts the fake and runs the binary.
func measure(ctx context.Context, o options) (*result, error) {
	reports, err := loadReports(o.data, o.set, o.n)
	if err != nil {
		return nil, err
	}
	pool, err := pageTexts(o.data)
	if err != nil {
		return nil, err
	}
	fx, err := buildFixture(filepath.Join(o.work, "fixture"), reports, pool)
	if err != nil {
		return nil, err
	}
	f := newFake(fakeOptions{Latency: o.latency, SearchLatency: o.searchLatency, RPM: o.rpm, TPM: o.tpm,
		CheckWorthyRate: o.checkWorthyRate, Attribute: fx.Attribute})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	cfg := o.config
	if cfg == "" {
		cfg = filepath.Join(o.work, "empty.toml")
		if err := os.WriteFile(cfg, nil, 0o644); err != nil {
			return nil, err
		}
	}
	env := append(os.Environ(),
		"OPENAI_BASE_URL="+base+"/v1", "OPENAI_API_KEY=benchtool", "SEARXNG_BASE_URL="+base,
		"CLAIMTRACE_CONFIG="+cfg, "CLAIMTRACE_DATA_DIR="+filepath.Join(o.work, "data"))
	evalArgs := func(out, store string) []string {
		a := []string{"eval", "--dataset", fx.Dataset, "--reports", fx.Reports, "--out", out, "--store", store,
			"--snapshot", fx.Snapshot, "--offline", "--json",
			"--judge", "openai:bench-judge", "--check-worthy", "openai:bench-judge",
			"--fact-checkers", "openai:bench-checker-a@searxng,openai:bench-checker-b@searxng"}
		return append(a, strings.Fields(o.evalArgs)...)
	}
	res := &result{Label: o.label, Bin: o.bin, Set: o.set, Reports: len(reports), Pages: fx.Pages, PageKB: float64(fx.PageBytes) / 1000}

	runStore := filepath.Join(o.work, "run.db")
	if o.dryRun {
		n, err := dryCalls(ctx, o.bin, env, append(evalArgs(filepath.Join(o.work, "dry1"), filepath.Join(o.work, "dry.db")), "--dry-run"))
		if err != nil {
			return nil, err
		}
		res.DryFresh = n
	}
	out := filepath.Join(o.work, "out")
	args := evalArgs(out, runStore)
	res.Args = args
	cmd := exec.CommandContext(ctx, o.bin, args...)
	cmd.Env = env
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	stop := make(chan struct{})
	samples := make(chan []int, 1)
	go func() { samples <- f.sampleInFlight(stop) }()
	start := time.Now()
	err = cmd.Run()
	res.WallSeconds = time.Since(start).Seconds()
	close(stop)
	if err != nil {
		return nil, fmt.Errorf("%s eval: %w", o.bin, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.PeakRSSMB = float64(ru.Maxrss) / 1024
		res.CPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	res.Server = f.Stats()
	res.Server.InFlight = map[string][]int{"all": <-samples}
	var sum eval.Summary
	if err := json.Unmarshal([]byte(stdout.String()), &sum); err != nil {
		return nil, fmt.Errorf("read the summary eval printed: %w", err)
	}
	res.Scored, res.Failed, res.Ledger = sum.Reports, sum.ReportsFailed, sum.LLM
	if err := res.perReport(out, fx, f.Stats()); err != nil {
		return nil, err
	}
	if o.rpm > 0 {
		res.RateLimit = float64(f.busiestMinute()) / float64(o.rpm)
	}
	if o.dryRun {
		n, err := dryCalls(ctx, o.bin, env, append(evalArgs(filepath.Join(o.work, "dry2"), runStore), "--dry-run"))
		if err != nil {
			return nil, err
		}
		res.DryAfter = n
	}
	return res, nil
}

// perReport reads the run's report files and sets the per-report figures
// and the reference count.
func (r *result) perReport(out string, fx *fixture, st fakeStats) error {
	var calls, tokens, ratios []float64
	var all []*eval.Result
	for id, text := range fx.Texts {
		res, err := eval.ReadResult(filepath.Join(out, "reports", id+".json"))
		if err != nil {
			continue // a report that failed has no file; eval counted it
		}
		if res.Stats.ReferenceBlocks == 0 {
			// Written by a binary that did not record it.
			res.Stats.ReferenceBlocks, res.Stats.ReferenceSplitFails = eval.ReferenceBlocks(text)
		}
		all = append(all, res)
		ref := eval.ReferenceEstimate([]*eval.Result{res})
		c := float64(st.ByReport[id])
		calls = append(calls, c)
		tokens = append(tokens, float64(st.TokensByReport[id]))
		if ref.Calls > 0 {
			ratios = append(ratios, c/float64(ref.Calls))
		}
	}
	r.Reference = eval.ReferenceEstimate(all)
	r.CheckWorthy = r.Reference.NonCited
	r.CallsPerReport = spread(calls)
	r.PromptTokensPerReport = spread(tokens)
	r.Ratio = spread(ratios)
	return nil
}

// spread returns the median, minimum and maximum of xs.
func spread(xs []float64) [3]float64 {
	if len(xs) == 0 {
		return [3]float64{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return [3]float64{percentile(s, 50), s[0], s[len(s)-1]}
}

// dryCalls runs a dry run and returns the calls it estimates.
func dryCalls(ctx context.Context, bin string, env, args []string) (int, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s eval --dry-run: %w", bin, err)
	}
	var v struct {
		Stages map[string]struct {
			Calls int `json:"calls"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &v); err != nil {
		return 0, fmt.Errorf("read the dry run's JSON: %w", err)
	}
	n := 0
	for _, s := range v.Stages {
		n += s.Calls
	}
	return n, nil
}

// print writes the result for a reader.
func (r *result) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	if r.Label != "" {
		row("run", "%s", r.Label)
	}
	row("binary", "%s", r.Bin)
	row("reports", "%d %s (%d scored, %d failed); %d pages of %.1f KB on average", r.Reports, r.Set, r.Scored, r.Failed, r.Pages, r.PageKB)
	row("wall clock", "%.1f s", r.WallSeconds)
	row("CPU", "%.1f s; peak RSS %.0f MB", r.CPUSeconds, r.PeakRSSMB)
	s := r.Server
	row("model calls (server)", "%d answered, %d refused 429; %d prompt and %d completion tokens; %d searches", s.Answered, s.RateLimited, s.PromptTokens, s.CompletionTokens, s.Searches)
	row("model calls (ledger)", "%d sent, %d failed, %d from the cache; %d input tokens", r.Ledger.Calls, r.Ledger.Failed, r.Ledger.CacheHits, r.Ledger.InputTokens)
	var kinds []string
	for k, v := range s.BySchema {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(kinds)
	row("by answer schema", "%s", strings.Join(kinds, ", "))
	row("max in flight", "%d (median over the run's seconds: %.0f)", s.MaxInFlight, medianInts(s.InFlight["all"]))
	row("calls a report", "median %.0f (%.0f–%.0f); %d calls not attributed to a report", r.CallsPerReport[0], r.CallsPerReport[1], r.CallsPerReport[2], s.Unattributed)
	row("prompt tokens a report", "median %.0f (%.0f–%.0f)", r.PromptTokensPerReport[0], r.PromptTokensPerReport[1], r.PromptTokensPerReport[2])
	ref := r.Reference
	row("reference (2B+2C+U+6N)", "%d calls: B=%d C=%d U=%d N=%d (%d split failures)", ref.Calls, ref.Blocks, ref.Pairs, ref.URLs, ref.NonCited, ref.SplitFailures)
	row("ratio to the reference", "median %.3f (%.3f–%.3f)", r.Ratio[0], r.Ratio[1], r.Ratio[2])
	if r.DryFresh > 0 || r.DryAfter > 0 {
		row("dry run estimate", "%d calls on an empty store (%+.0f%%), %d after the run (%+.0f%%)", r.DryFresh, pctOff(r.DryFresh, s.Answered), r.DryAfter, pctOff(r.DryAfter, s.Answered))
	}
	if r.RateLimit > 0 {
		row("rate limit reached", "%.2f of the account's requests per minute (the busiest minute of the busiest model)", r.RateLimit)
	}
	tw.Flush()
}

func pctOff(est int, real int64) float64 {
	if real == 0 {
		return 0
	}
	return (float64(est)/float64(real) - 1) * 100
}

func medianInts(xs []int) float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	if len(f) == 0 {
		return 0
	}
	return percentile(f, 50)
}
