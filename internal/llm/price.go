package llm

import (
	"strings"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// Price is what a model costs, in US dollars per million tokens (and per
// thousand billed web searches). Cached input tokens are billed at Cached
// instead of Input; Anthropic's cache writes are billed as plain input.
type Price struct {
	Input          float64 `json:"input" toml:"input"`
	Output         float64 `json:"output" toml:"output"`
	Cached         float64 `json:"cached" toml:"cached"`
	WebSearchPer1K float64 `json:"web_search_per_1k" toml:"web_search_per_1k"`
}

// Cost prices a usage.
func (p Price) Cost(u Usage) float64 {
	cached := min(u.CachedTokens, u.InputTokens)
	return (float64(u.InputTokens-cached)*p.Input+
		float64(cached)*p.Cached+
		float64(u.OutputTokens)*p.Output)/1e6 +
		float64(u.WebSearches)*p.WebSearchPer1K/1e3
}

// PricesAsOf is the date the built-in price table was copied from the
// providers' public price pages. Prices change: override them per model
// in the config file.
const PricesAsOf = "2025-11-15"

// Built-in list prices (USD per 1M tokens, standard tier, prompts up to
// 200k tokens where the provider has tiers), as published on PricesAsOf.
// Web search: OpenAI web_search tool $10/1k calls, Anthropic web search
// $10/1k searches, Gemini grounding with Google Search $35/1k grounded
// prompts (beyond the free daily allowance, which is not modelled).
var builtinPrices = map[Provider]map[string]Price{
	OpenAI: {
		"gpt-4o":       {Input: 2.50, Cached: 1.25, Output: 10.00, WebSearchPer1K: 10},
		"gpt-4o-mini":  {Input: 0.15, Cached: 0.075, Output: 0.60, WebSearchPer1K: 10},
		"gpt-4.1":      {Input: 2.00, Cached: 0.50, Output: 8.00, WebSearchPer1K: 10},
		"gpt-4.1-mini": {Input: 0.40, Cached: 0.10, Output: 1.60, WebSearchPer1K: 10},
		"gpt-4.1-nano": {Input: 0.10, Cached: 0.025, Output: 0.40, WebSearchPer1K: 10},
		"gpt-5":        {Input: 1.25, Cached: 0.125, Output: 10.00, WebSearchPer1K: 10},
		"gpt-5-mini":   {Input: 0.25, Cached: 0.025, Output: 2.00, WebSearchPer1K: 10},
		"gpt-5-nano":   {Input: 0.05, Cached: 0.005, Output: 0.40, WebSearchPer1K: 10},
		"gpt-5.1":      {Input: 1.25, Cached: 0.125, Output: 10.00, WebSearchPer1K: 10},
		"o3":           {Input: 2.00, Cached: 0.50, Output: 8.00, WebSearchPer1K: 10},
		"o4-mini":      {Input: 1.10, Cached: 0.275, Output: 4.40, WebSearchPer1K: 10},
	},
	Gemini: {
		"gemini-2.5-pro":        {Input: 1.25, Cached: 0.31, Output: 10.00, WebSearchPer1K: 35},
		"gemini-2.5-flash":      {Input: 0.30, Cached: 0.075, Output: 2.50, WebSearchPer1K: 35},
		"gemini-2.5-flash-lite": {Input: 0.10, Cached: 0.025, Output: 0.40, WebSearchPer1K: 35},
		"gemini-2.0-flash":      {Input: 0.10, Cached: 0.025, Output: 0.40, WebSearchPer1K: 35},
	},
	Anthropic: {
		"claude-opus-4-5":   {Input: 5.00, Cached: 0.50, Output: 25.00, WebSearchPer1K: 10},
		"claude-opus-4-1":   {Input: 15.00, Cached: 1.50, Output: 75.00, WebSearchPer1K: 10},
		"claude-opus-4":     {Input: 15.00, Cached: 1.50, Output: 75.00, WebSearchPer1K: 10},
		"claude-sonnet-4-5": {Input: 3.00, Cached: 0.30, Output: 15.00, WebSearchPer1K: 10},
		"claude-sonnet-4":   {Input: 3.00, Cached: 0.30, Output: 15.00, WebSearchPer1K: 10},
		"claude-3-7-sonnet": {Input: 3.00, Cached: 0.30, Output: 15.00, WebSearchPer1K: 10},
		"claude-haiku-4-5":  {Input: 1.00, Cached: 0.10, Output: 5.00, WebSearchPer1K: 10},
		"claude-3-5-haiku":  {Input: 0.80, Cached: 0.08, Output: 4.00, WebSearchPer1K: 10},
	},
}

// versionSuffix matches what providers append to a model family name for a
// dated or pinned version: -2024-08-06, -20250514, -001, -latest,
// -preview-06-05, -exp-03-25.
var versionSuffix = lazyregexp.New(`^-(\d{4}-\d{2}-\d{2}|\d{8}|\d{3}|latest|(preview|exp)(-\d{2}-\d{2}|-\d{4})?)$`)

// LookupPrice finds the built-in price of a model: the exact name, or the
// family name followed by a version suffix ("gpt-4o-2024-08-06" is
// "gpt-4o", but "gpt-4o-audio-preview" is not). ok is false for models the
// table does not know; their calls cost 0 until a price is configured.
func LookupPrice(p Provider, model string) (Price, bool) {
	table := builtinPrices[p]
	model = strings.ToLower(strings.TrimPrefix(model, "models/"))
	if pr, ok := table[model]; ok {
		return pr, true
	}
	best := ""
	for name := range table {
		if strings.HasPrefix(model, name) && versionSuffix.MatchString(model[len(name):]) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return table[best], true
}
