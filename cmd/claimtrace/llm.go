package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/prompts"
	"github.com/claimtrace/claimtrace/internal/store"
)

func (a *app) llmCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "llm",
		Short: "Check model endpoints",
		Long: `Model specs are provider:model (openai:gpt-4o, gemini:gemini-2.5-flash,
anthropic:claude-sonnet-4-5) or a name under [llm.models] in the config file.
Keys come from OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY) and
ANTHROPIC_API_KEY; OPENAI_BASE_URL, GEMINI_BASE_URL and ANTHROPIC_BASE_URL
point a provider elsewhere (Azure, vLLM, Ollama, a proxy).`,
	}
	cmd.AddCommand(a.llmCheckCmd())
	return cmd
}

func (a *app) llmCheckCmd() *cobra.Command {
	var model string
	var web bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Send one tiny request and print provider, model, latency and tokens",
		Long: `check sends one tiny request (a few tokens; no cache, no retry) and prints
what came back, or exits non-zero with the reason: no key, wrong key, unknown
model, unreachable endpoint.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.llmCheck(cmd.Context(), model, web)
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "model spec or configured name (default: llm.model from the config)")
	cmd.Flags().BoolVar(&web, "web", false, "also enable the provider's web search (OpenAI Responses web_search, Gemini grounding, Anthropic web search)")
	return cmd
}

// llmRun is what a command shares with the clients it opens: the run id,
// the store's cache and ledger, the run budget, and the dry-run recorder
// (nil for a real run). Build it with RunConfig.llmRun, so the budget and
// the cache setting are the resolved ones.
type llmRun struct {
	Run     string
	Cache   llm.Cache
	Ledger  llm.Ledger
	Budget  *llm.Budget
	NoCache bool
	Dry     *llm.DryRun
}

// openLLM opens a client for a model spec or configured name with the
// configured limits, prices and temperature. A dry run's client sends
// nothing, so it needs no key.
func (a *app) openLLM(ctx context.Context, spec string, r llmRun) (*llm.Client, error) {
	ep, opts, err := a.cfg.endpoint(spec)
	if err != nil {
		return nil, err
	}
	opts.Run, opts.Cache, opts.Ledger, opts.Budget, opts.NoCache = r.Run, r.Cache, r.Ledger, r.Budget, r.NoCache
	if p := a.modelProgress(); p != nil && r.Dry == nil {
		opts.Ledger = progressLedger{inner: r.Ledger, p: p}
	}
	if r.Dry != nil {
		opts.DryRun = r.Dry
		return llm.NewClient(ep, nil, opts), nil
	}
	return llm.Open(ctx, ep, opts)
}

// llmCheck sends one tiny request to the model spec names, without cache
// or retry, and prints the provider, model, endpoint, latency, tokens,
// cost and answer, with every key redacted.
func (a *app) llmCheck(ctx context.Context, spec string, web bool) error {
	ep, opts, err := a.cfg.endpoint(spec)
	if err != nil {
		return err
	}
	opts.Retry.MaxAttempts = 1
	what := "llm check"
	if ep.Name != ep.String() {
		what += " " + ep.Name // a configured name; errors name provider:model
	}
	c, err := llm.Open(ctx, ep, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	p, err := prompts.Get("llm/check")
	if err != nil {
		return err
	}
	text, err := p.Render(nil)
	if err != nil {
		return err
	}
	// Room for a reasoning model's thinking; the answer is one word.
	req := llm.Request{Stage: "check", Messages: []llm.Message{llm.UserMessage(text)}, MaxTokens: 512, WebSearch: web}
	if web {
		req.MaxTokens = 2048
	}
	resp, err := c.Generate(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}

	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "provider\t%s\n", ep.Provider)
	served := ""
	if resp.Model != "" && resp.Model != ep.Model {
		served = " (served as " + resp.Model + ")"
	}
	fmt.Fprintf(tw, "model\t%s%s\n", ep.Model, served)
	endpoint := ep.BaseURL
	if endpoint == "" {
		endpoint = "public API"
	}
	fmt.Fprintf(tw, "endpoint\t%s\n", endpoint)
	fmt.Fprintf(tw, "latency\t%s\n", resp.Latency.Round(time.Millisecond))
	u := resp.Usage
	fmt.Fprintf(tw, "tokens\t%d in (%d cached), %d out (%d reasoning)\n", u.InputTokens, u.CachedTokens, u.OutputTokens, u.ReasoningTokens)
	if _, priced := c.Price(); priced {
		fmt.Fprintf(tw, "cost\t$%.6f (list prices as of %s or configured)\n", resp.Cost, llm.PricesAsOf)
	} else {
		fmt.Fprintf(tw, "cost\tunknown (no price for this model; set price_input/price_output in the config)\n")
	}
	answer := strings.TrimSpace(resp.Text)
	if r := []rune(answer); len(r) > 200 {
		answer = string(r[:200]) + "…"
	}
	if resp.Truncated() {
		answer += " [cut off at the token limit]"
	}
	fmt.Fprintf(tw, "answer\t%s\n", answer)
	if web {
		fmt.Fprintf(tw, "web\t%d searches, %d sources, %d citations\n", u.WebSearches, len(resp.Sources), len(resp.Citations))
	}
	tw.Flush()
	_, err = fmt.Fprint(a.stdout, a.redact(b.String()))
	return err
}

// liveRun is what the live provenance judge's clients share: the resolved
// run configuration of llm.* (live sessions take no budget flags).
func (a *app) liveRun(st *store.Store) llmRun {
	rc, _ := a.runConfig(nil, false) // the Config was validated when loaded
	return rc.llmRun("live", st.LLMCache(), st)
}
