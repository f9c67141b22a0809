package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/inputfile"
	"github.com/claimtrace/claimtrace/internal/llm"
)

// Config is the effective configuration: defaults < config file <
// CLAIMTRACE_* environment < flags. Secrets are never stored here by value
// from the file; the file names the environment variable that holds a key.
type Config struct {
	// DataDir holds the default store and caches.
	DataDir string `toml:"data_dir"`
	// Store is the store DSN: a SQLite file path (default DataDir/claimtrace.db),
	// "sqlite:PATH" or a postgres:// URL.
	Store string `toml:"store"`
	// Concurrency bounds parallel work (reports, fetches).
	Concurrency int `toml:"concurrency"`

	Fetch  FetchConfig  `toml:"fetch"`
	LLM    LLMConfig    `toml:"llm"`
	Search SearchConfig `toml:"search"`
	Serve  ServeConfig  `toml:"serve"`
	Live   LiveConfig   `toml:"live"`
	Eval   EvalConfig   `toml:"eval"`

	// file is the config file read ("" when none); loaded says whether it
	// existed.
	file   string
	loaded bool
}

// FetchConfig configures the HTTP fetcher used for cited URLs.
type FetchConfig struct {
	UserAgent   string `toml:"user_agent"`
	TimeoutSecs int    `toml:"timeout_seconds"`
	MaxBytes    int64  `toml:"max_bytes"`
	// AllowHosts lists hosts (or CIDRs) that may resolve to private addresses,
	// e.g. an intranet mirror. URLs from reports never get this by default.
	AllowHosts []string `toml:"allow_hosts"`
	// PerHostRPS limits requests per second to one host (politeness).
	PerHostRPS float64 `toml:"per_host_rps"`
	// RunTimeoutSecs bounds the whole time a run (eval, audit, gate) waits
	// for cited sources; what is left then is not fetched. 0: no bound.
	RunTimeoutSecs int `toml:"run_timeout_seconds"`
	// ProbeURLs answer when the network works: when no cited host answers,
	// they tell an outage from dead links.
	ProbeURLs []string `toml:"probe_urls"`
}

// SearchConfig configures the baseline agent's tools (claimtrace run): the
// web search API and the page reader. Keys are never stored here: key_env
// names the environment variable holding one (by default SERPAPI_API_KEY,
// BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_API_KEY; FIRECRAWL_API_KEY or
// JINA_API_KEY for the reader). Base URLs also come from
// <PROVIDER>_BASE_URL (SERPAPI_BASE_URL, SEARXNG_BASE_URL, …) when unset.
type SearchConfig struct {
	// Provider is the default search: serpapi, brave, tavily, searxng or
	// native (the model provider's own web search).
	Provider string `toml:"provider"`
	// BaseURL overrides the provider's API; a SearXNG instance needs it.
	// It applies to Provider only.
	BaseURL string `toml:"base_url"`
	KeyEnv  string `toml:"key_env"`
	// Results is how many results a search returns to the model.
	Results int `toml:"results"`
	// Reader is the default page reader: builtin (our SSRF-safe fetcher),
	// firecrawl or jina. ReaderBaseURL and ReaderKeyEnv apply to it.
	Reader        string `toml:"reader"`
	ReaderBaseURL string `toml:"reader_base_url"`
	ReaderKeyEnv  string `toml:"reader_key_env"`
	// ReadChars is how much of a page the model is shown (characters).
	ReadChars int `toml:"read_chars"`
	// MaxTokens caps each answer of the agent's model.
	MaxTokens int `toml:"max_tokens"`
}

// maxConfigBytes bounds the configuration file: one is a few kilobytes.
const maxConfigBytes = 1 << 20

func defaultConfig() *Config {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return &Config{
		DataDir:     filepath.Join(dir, "claimtrace"),
		Concurrency: 8,
		Fetch: FetchConfig{
			UserAgent:      "claimtrace/0.1 (+https://github.com/claimtrace/claimtrace)",
			TimeoutSecs:    30,
			MaxBytes:       20 << 20,
			PerHostRPS:     2,
			RunTimeoutSecs: 600,
			ProbeURLs:      fetch.DefaultProbes(),
		},
		LLM: LLMConfig{
			FactCheckers: []string{"gemini:gemini-2.5-pro", "gemini:gemini-2.5-flash"},
			Temperature:  new(0.0),
			TimeoutSecs:  600,
			MaxAttempts:  5,
		},
		Search: SearchConfig{
			Provider:  "serpapi",
			Results:   10,
			Reader:    "builtin",
			ReadChars: 20000,
			MaxTokens: 8192,
		},
	}
}

// loadConfig builds the effective configuration once per invocation.
func (a *app) loadConfig() error {
	if a.cfg != nil {
		return nil
	}
	cfg := defaultConfig()
	path := a.configPath
	explicit := path != ""
	if path == "" {
		path = os.Getenv("CLAIMTRACE_CONFIG")
		explicit = path != ""
	}
	if path == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			path = filepath.Join(dir, "claimtrace", "config.toml")
		}
	}
	if path != "" {
		cfg.file = path
		// Only a regular file is read: a named pipe given as --config
		// would block forever.
		var md toml.MetaData
		data, err := inputfile.ReadFile(path, maxConfigBytes)
		if err == nil {
			md, err = toml.Decode(string(data), cfg)
		}
		switch {
		case err == nil:
			cfg.loaded = true
			if err := zeroBudget(md, cfg.LLM); err != nil {
				return fmt.Errorf("config %s: %w", path, err)
			}
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		default:
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	if v := os.Getenv("CLAIMTRACE_DATA_DIR"); v != "" {
		cfg.DataDir = v
	}
	if v := os.Getenv("CLAIMTRACE_STORE"); v != "" {
		cfg.Store = v
	}
	if v := os.Getenv("CLAIMTRACE_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("CLAIMTRACE_CONCURRENCY=%q: want a positive integer", v)
		}
		cfg.Concurrency = n
	}
	if err := cfg.LLM.fromEnv(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	a.cfg = cfg
	return nil
}

// secretValues returns key values the configuration can reach, for
// redaction: the values of the key variables the config file names (the
// standard ones are covered by secretEnv).
func (c *Config) secretValues() []string {
	var out []string
	for _, m := range c.LLM.Models {
		if m.KeyEnv == "" {
			continue
		}
		if v := os.Getenv(m.KeyEnv); len(v) >= 6 {
			out = append(out, v)
		}
	}
	for _, name := range []string{c.Search.KeyEnv, c.Search.ReaderKeyEnv, "SEARXNG_API_KEY"} {
		if v := os.Getenv(name); name != "" && len(v) >= 6 {
			out = append(out, v)
		}
	}
	return out
}

// LLMConfig configures model endpoints and what a run may spend. Keys are
// never stored here: a model names the environment variable holding its
// key (key_env), by default the provider's standard one.
type LLMConfig struct {
	// Model is the default model (a spec "provider:model" or a name under
	// [llm.models]) for commands given no --model.
	Model string `toml:"model"`
	// FactCheckers are the web-connected fact-check models for non-cited
	// statements (the paper: Gemini 2.5 Pro and Flash, 3 votes each).
	FactCheckers []string `toml:"fact_checkers"`
	// MaxCost (US dollars) and MaxCalls bound a run. A run has no limit
	// when they are left out (0 here, never written as 0: see zeroBudget).
	MaxCost  float64 `toml:"max_cost,omitzero"`
	MaxCalls int64   `toml:"max_calls,omitzero"`
	// NoCache stops reading cached answers (fresh ones are still stored).
	NoCache bool `toml:"no_cache"`
	// Temperature is the default sampling temperature (0, as ReportBench).
	Temperature *float64 `toml:"temperature"`
	// TimeoutSecs bounds one attempt of one call.
	TimeoutSecs int `toml:"timeout_seconds"`
	// MaxAttempts bounds attempts per call on rate limits and transient errors.
	MaxAttempts int `toml:"max_attempts"`
	// Concurrency is the default ceiling on calls in flight per endpoint
	// (0: llm.DefaultMaxConcurrency); below it, calls in flight adapt to
	// the answers (llm.Limits).
	Concurrency int `toml:"concurrency"`
	// Models are named endpoints: [llm.models.NAME].
	Models map[string]ModelConfig `toml:"models"`
}

// ModelConfig is one named model endpoint of the config file.
type ModelConfig struct {
	Provider string `toml:"provider"` // openai | gemini | anthropic
	Model    string `toml:"model"`
	// BaseURL reaches OpenAI-compatible servers (vLLM, Ollama, llama.cpp,
	// Azure, OpenRouter) or a proxy.
	BaseURL string `toml:"base_url"`
	// KeyEnv names the environment variable holding the key.
	KeyEnv string `toml:"key_env"`
	// API is "chat" or "responses" for OpenAI ("" picks per request).
	API string `toml:"api"`
	// StructuredOutput false stops sending native JSON-schema mode.
	StructuredOutput *bool `toml:"structured_output"`
	// RPM and TPM are the account's requests and tokens per minute: 0
	// for the provider's default (llm.DefaultLimits), -1 for no limit.
	// Limits the provider reports in its answers' headers replace
	// defaults, and configured values when lower.
	RPM int `toml:"rpm"`
	TPM int `toml:"tpm"`
	// Concurrency is this model's ceiling on calls in flight.
	Concurrency int `toml:"concurrency"`
	// Temperature overrides llm.temperature for this model.
	Temperature *float64 `toml:"temperature"`
	TimeoutSecs int      `toml:"timeout_seconds"`
	// Prices in US dollars per million tokens (per thousand searches);
	// unset ones come from the built-in table.
	PriceInput     *float64 `toml:"price_input"`
	PriceOutput    *float64 `toml:"price_output"`
	PriceCached    *float64 `toml:"price_cached"`
	PriceWebSearch *float64 `toml:"price_web_search_per_1k"`
}

// fromEnv applies CLAIMTRACE_MODEL, CLAIMTRACE_MAX_COST and
// CLAIMTRACE_MAX_CALLS.
func (l *LLMConfig) fromEnv() error {
	if v := os.Getenv("CLAIMTRACE_MODEL"); v != "" {
		l.Model = v
	}
	if v := os.Getenv("CLAIMTRACE_MAX_COST"); v != "" {
		f, err := parseMaxCost(v)
		if err != nil {
			return fmt.Errorf("CLAIMTRACE_MAX_COST=%q: %w", v, err)
		}
		l.MaxCost = f
	}
	if v := os.Getenv("CLAIMTRACE_MAX_CALLS"); v != "" {
		n, err := parseMaxCalls(v)
		if err != nil {
			return fmt.Errorf("CLAIMTRACE_MAX_CALLS=%q: %w", v, err)
		}
		l.MaxCalls = n
	}
	return nil
}

// baseURLEnv lists the environment variables that override a provider's
// base URL, in order of preference.
func baseURLEnv(p llm.Provider) []string {
	switch p {
	case llm.OpenAI:
		return []string{"OPENAI_BASE_URL"}
	case llm.Gemini:
		return []string{"GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"}
	case llm.Anthropic:
		return []string{"ANTHROPIC_BASE_URL"}
	}
	return nil
}

func firstEnv(names []string) (name, value string) {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// endpoint resolves a model spec or a configured model name (spec "" means
// llm.model) into the endpoint to call and the client options of its
// limits, prices and temperature. The key is read from the environment
// here and nowhere else; a missing one is reported when the model is
// opened, naming the variable to set.
func (c *Config) endpoint(spec string) (llm.Endpoint, llm.Options, error) {
	if spec == "" {
		spec = c.LLM.Model
	}
	if spec == "" {
		return llm.Endpoint{}, llm.Options{}, fmt.Errorf("no model: pass --model provider:model (openai:gpt-4o, gemini:gemini-2.5-flash, anthropic:claude-sonnet-4-5) or set llm.model in the config file")
	}
	mc, named := c.LLM.Models[spec]
	var ep llm.Endpoint
	if named {
		p, _, err := llm.ParseSpec(mc.Provider + ":" + mc.Model)
		if err != nil || mc.Model == "" {
			return llm.Endpoint{}, llm.Options{}, fmt.Errorf("config llm.models.%s: want provider (openai, gemini, anthropic) and model: %w", spec, claimtrace.ErrInvalid)
		}
		ep = llm.Endpoint{Name: spec, Provider: p, Model: mc.Model}
	} else {
		p, m, err := llm.ParseSpec(spec)
		if err != nil {
			return llm.Endpoint{}, llm.Options{}, err
		}
		ep = llm.Endpoint{Name: spec, Provider: p, Model: m}
	}
	switch mc.API {
	case llm.APIAuto, llm.APIChat, llm.APIResponses:
		ep.API = mc.API
	default:
		return llm.Endpoint{}, llm.Options{}, fmt.Errorf("config llm.models.%s: api %q: want chat or responses: %w", spec, mc.API, claimtrace.ErrInvalid)
	}
	ep.BaseURL = mc.BaseURL
	if ep.BaseURL == "" {
		_, ep.BaseURL = firstEnv(baseURLEnv(ep.Provider))
	}
	keyEnv := llm.DefaultKeyEnv(ep.Provider)
	if mc.KeyEnv != "" {
		keyEnv = []string{mc.KeyEnv}
	}
	ep.KeyEnv = strings.Join(keyEnv, " or ")
	_, ep.APIKey = firstEnv(keyEnv)
	ep.NoStructuredOutput = mc.StructuredOutput != nil && !*mc.StructuredOutput
	ep.Timeout = time.Duration(cmp.Or(mc.TimeoutSecs, c.LLM.TimeoutSecs)) * time.Second

	opts := llm.Options{
		NoCache:     c.LLM.NoCache,
		Limits:      llm.Limits{RPM: mc.RPM, TPM: mc.TPM, Concurrency: cmp.Or(mc.Concurrency, c.LLM.Concurrency)},
		Retry:       llm.Retry{MaxAttempts: c.LLM.MaxAttempts},
		Temperature: cmp.Or(mc.Temperature, c.LLM.Temperature),
	}
	if mc.PriceInput != nil || mc.PriceOutput != nil || mc.PriceCached != nil || mc.PriceWebSearch != nil {
		p, _ := llm.LookupPrice(ep.Provider, ep.Model)
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&p.Input, mc.PriceInput)
		set(&p.Output, mc.PriceOutput)
		set(&p.Cached, mc.PriceCached)
		set(&p.WebSearchPer1K, mc.PriceWebSearch)
		opts.Price = &p
	}
	return ep, opts, nil
}

// Validate reports settings of the config file (or environment) that no
// command can run with.
func (c *Config) Validate() error {
	bad := func(what string, v any, want string) error {
		return fmt.Errorf("config %s = %v: want %s: %w", what, v, want, claimtrace.ErrInvalid)
	}
	switch {
	case c.Concurrency < 1:
		return bad("concurrency", c.Concurrency, "at least 1")
	case c.LLM.MaxCost < 0 || math.IsNaN(c.LLM.MaxCost) || math.IsInf(c.LLM.MaxCost, 0):
		return bad("llm.max_cost", c.LLM.MaxCost, "a positive number of dollars (leave it out for no limit)")
	case c.LLM.MaxCalls < 0:
		return bad("llm.max_calls", c.LLM.MaxCalls, "a positive number of calls (leave it out for no limit)")
	case c.LLM.Concurrency < 0:
		return bad("llm.concurrency", c.LLM.Concurrency, "a non-negative number")
	case c.LLM.MaxAttempts < 0:
		return bad("llm.max_attempts", c.LLM.MaxAttempts, "a non-negative number")
	case c.LLM.TimeoutSecs < 0:
		return bad("llm.timeout_seconds", c.LLM.TimeoutSecs, "a non-negative number")
	case c.Fetch.TimeoutSecs < 0:
		return bad("fetch.timeout_seconds", c.Fetch.TimeoutSecs, "a non-negative number")
	case c.Fetch.MaxBytes < 0:
		return bad("fetch.max_bytes", c.Fetch.MaxBytes, "a non-negative number")
	case c.Fetch.RunTimeoutSecs < 0:
		return bad("fetch.run_timeout_seconds", c.Fetch.RunTimeoutSecs, "a non-negative number")
	}
	if t := c.LLM.Temperature; t != nil && (*t < 0 || math.IsNaN(*t)) {
		return bad("llm.temperature", *t, "a non-negative number")
	}
	return nil
}

// RunConfig is the resolved configuration of one command's model calls:
// llm.max_cost, llm.max_calls and llm.no_cache of the config file (after
// CLAIMTRACE_MAX_COST and CLAIMTRACE_MAX_CALLS), each replaced by its
// flag when that flag was given (a flag not given leaves the configured
// value; --max-cost none given lifts the configured limit), and whether the
// run is dry. Every command that calls models builds it with
// app.runConfig, and nothing else merges these flags with the config.
type RunConfig struct {
	// MaxCost (US dollars) and MaxCalls bound the run; 0 here means no
	// limit (llm.NewBudget's convention; users write "none" or leave the
	// setting out, never 0). The two are independent: a flag for one keeps
	// the other.
	MaxCost  float64
	MaxCalls int64
	// NoCache asks the models again instead of reading cached answers.
	NoCache bool
	// DryRun runs the command with clients that price every request they
	// would send and send none (llm.DryRun).
	DryRun bool
}

// Validate reports a run configuration no command can run with.
func (r RunConfig) Validate() error {
	if r.MaxCost < 0 || math.IsNaN(r.MaxCost) || math.IsInf(r.MaxCost, 0) {
		return fmt.Errorf("--max-cost %v: want a positive number of US dollars, or none for no limit: %w", r.MaxCost, claimtrace.ErrInvalid)
	}
	if r.MaxCalls < 0 {
		return fmt.Errorf("--max-calls %d: want a positive number of calls, or none for no limit: %w", r.MaxCalls, claimtrace.ErrInvalid)
	}
	return nil
}

// llmRun is what the clients of one run share: one budget (so its limits
// hold across every model of the run), the cache and the ledger, and a dry
// run's recorder.
func (r RunConfig) llmRun(run string, cache llm.Cache, ledger llm.Ledger) llmRun {
	l := llmRun{Run: run, Cache: cache, Ledger: ledger, NoCache: r.NoCache}
	if r.DryRun {
		l.Dry = &llm.DryRun{}
	} else {
		l.Budget = llm.NewBudget(r.MaxCost, r.MaxCalls)
	}
	return l
}

// runConfig resolves the run configuration of a command from the
// effective Config and the command's model flags (nil: it has none).
func (a *app) runConfig(f *llmFlags, dryRun bool) (RunConfig, error) {
	r := RunConfig{MaxCost: a.cfg.LLM.MaxCost, MaxCalls: a.cfg.LLM.MaxCalls, NoCache: a.cfg.LLM.NoCache, DryRun: dryRun}
	if f != nil {
		if f.maxCost.set {
			r.MaxCost = f.maxCost.value
		}
		if f.maxCalls.set {
			r.MaxCalls = f.maxCalls.value
		}
		if f.noCache.set {
			r.NoCache = f.noCache.value
		}
	}
	return r, r.Validate()
}

// llmFlags are the flags of a command that calls models: the run budget
// and the response cache. Each remembers whether it was given, so that
// runConfig overrides only what the command line says.
type llmFlags struct {
	maxCost  flagValue[float64]
	maxCalls flagValue[int64]
	noCache  flagValue[bool]
}

func (f *llmFlags) add(fs *pflag.FlagSet) {
	f.maxCost.parse = parseMaxCost
	f.maxCalls.parse = parseMaxCalls
	f.noCache.parse = strconv.ParseBool
	fs.Var(&f.maxCost, "max-cost", "stop starting model calls once this many US dollars are spent; none: no limit (default: llm.max_cost, or no limit)")
	fs.Var(&f.maxCalls, "max-calls", "stop starting model calls after this many; none: no limit (default: llm.max_calls, or no limit)")
	fs.VarPF(&f.noCache, "no-cache", "", "ask the models again instead of answering from the response cache; answers are still stored (default: llm.no_cache)").NoOptDefVal = "true"
}

// flagValue is a flag that records whether it was given.
type flagValue[T float64 | int64 | bool] struct {
	value T
	set   bool
	parse func(string) (T, error)
}

func (f *flagValue[T]) String() string { return fmt.Sprint(f.value) }

func (f *flagValue[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	f.value, f.set = v, true
	return nil
}

// Type names the value as pflag's own flags do, so help shows no default
// for zero values.
func (f *flagValue[T]) Type() string { return fmt.Sprintf("%T", f.value) }
