package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Retry configures retries of rate-limited and transient failures.
type Retry struct {
	// MaxAttempts counts the first attempt (default 5; 1 disables retries).
	MaxAttempts int
	// BaseDelay is the first backoff delay (default 1s); it doubles per
	// attempt, jittered to between half and all of it, capped at MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff (default 30s).
	MaxDelay time.Duration
	// MaxRetryAfter is the longest provider-requested delay (Retry-After,
	// Gemini RetryInfo) honoured; a longer one (a daily quota) fails the
	// call at once (default 2m).
	MaxRetryAfter time.Duration
}

func (r Retry) withDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = time.Second
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 30 * time.Second
	}
	if r.MaxRetryAfter <= 0 {
		r.MaxRetryAfter = 2 * time.Minute
	}
	return r
}

// Options configure a Client. The zero value works: no cache, no ledger,
// no limits, no budget, default retries, built-in prices.
type Options struct {
	// Run is the run id recorded in the ledger.
	Run string
	// Cache stores answers. NoCache bypasses reading it, but fresh answers
	// are still written, so a --no-cache run refreshes the cache and a
	// later run reuses what it paid for.
	Cache   Cache
	NoCache bool
	// Ledger receives one record per call and per cache hit.
	Ledger Ledger
	// Budget is shared by every Client of a run.
	Budget *Budget
	Limits Limits
	Retry  Retry
	// Price overrides the built-in price table for this endpoint.
	Price *Price
	// Temperature is used when a request sets none.
	Temperature *float64
	// JSONAttempts bounds GenerateJSON's calls on malformed answers
	// (default 3).
	JSONAttempts int
	// Now is the clock for ledger timestamps and rate limits (default
	// time.Now).
	Now func() time.Time
	// Sleep waits between retries (default: a timer honouring ctx). Tests
	// replace it to observe delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// DryRun, when set, makes the client send nothing: every request it
	// would send is recorded and priced there and answered neutrally (see
	// DryRun). The Model may then be nil.
	DryRun *DryRun
}

// Client wraps a Model with the response cache, retries, rate limits,
// budget and accounting. It is safe for concurrent use; share one Client
// per endpoint so its limits hold across the whole run.
type Client struct {
	ep     Endpoint
	model  Model
	opts   Options
	retry  Retry
	price  Price
	priced bool
	lim    *limiter

	mu      sync.Mutex
	totals  Totals
	schemas map[string]*jsonschema.Resolved
}

// NewClient wraps m, which serves ep.
func NewClient(ep Endpoint, m Model, opts Options) *Client {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = backoff.Sleep
	}
	if opts.JSONAttempts <= 0 {
		opts.JSONAttempts = 3
	}
	c := &Client{ep: ep, model: m, opts: opts, retry: opts.Retry.withDefaults(), lim: newLimiter(opts.Limits, ep, opts.Now), schemas: map[string]*jsonschema.Resolved{}}
	if opts.Price != nil {
		c.price, c.priced = *opts.Price, true
	} else {
		c.price, c.priced = LookupPrice(ep.Provider, ep.Model)
	}
	return c
}

// Open builds the provider Model for ep (NewModel) and wraps it.
func Open(ctx context.Context, ep Endpoint, opts Options) (*Client, error) {
	m, err := NewModel(ctx, ep)
	if err != nil {
		return nil, err
	}
	return NewClient(ep, m, opts), nil
}

// Endpoint returns the endpoint the client calls (the key included: do
// not print it).
func (c *Client) Endpoint() Endpoint { return c.ep }

// Price returns the price used for accounting; ok is false when the model
// has none (its calls are accounted at zero cost).
func (c *Client) Price() (Price, bool) { return c.price, c.priced }

// Limits returns the limits the client started with (EffectiveLimits):
// its ceiling on calls in flight and the configured or default rates.
func (c *Client) Limits() Limits { return c.lim.configured }

// Pace returns how the client paces its calls now: calls in flight, how
// many may be (adapting as Limits says) and the rate limits in force.
func (c *Client) Pace() Pace { return c.lim.pace() }

// Totals returns the sums of this client's calls so far.
func (c *Client) Totals() Totals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.totals
}

// Key returns the cache key of req as this client would send it.
func (c *Client) Key(req Request) string {
	return Key(c.ep.Provider, c.ep.Model, c.withDefaults(req))
}

// Estimate predicts req's tokens and cost before sending it.
func (c *Client) Estimate(req Request) Estimate {
	return EstimateRequest(c.withDefaults(req), c.price, c.priced)
}

func (c *Client) withDefaults(req Request) Request {
	if req.Temperature == nil && c.opts.Temperature != nil {
		t := *c.opts.Temperature
		req.Temperature = &t
	}
	return req
}

// Generate answers req: from the cache when an identical request was
// answered before, else by calling the model, retrying rate limits and
// transient failures. Every outcome is recorded in the ledger.
func (c *Client) Generate(ctx context.Context, req Request) (Response, error) {
	return c.generate(ctx, req, nil, "")
}

// GenerateJSON answers req and decodes the answer into out (a pointer)
// with DecodeJSON's strict rules, after validating it against req.Schema
// when one is set. On a malformed answer the model is asked again, shown
// its answer and what was wrong, up to Options.JSONAttempts calls; then the
// call fails with ErrMalformed: the caller records a failed unit, never a
// verdict. Every answer is cached, the malformed ones too, so a rerun
// replays the whole exchange without new requests. The Response of the
// last call is returned in every case.
func (c *Client) GenerateJSON(ctx context.Context, req Request, out any) (Response, error) {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return Response{}, fmt.Errorf("generate json: out is %T, want a non-nil pointer: %w", out, claimtrace.ErrInvalid)
	}
	var sch *jsonschema.Resolved
	if req.Schema != nil {
		var err error
		if sch, err = c.compileSchema(req.Schema); err != nil {
			return Response{}, err
		}
	}
	elem := rv.Type().Elem()
	dryText := ""
	if c.opts.DryRun != nil {
		dryText = neutralValue(elem)
	}
	accept := func(r Response) error {
		js, err := ExtractJSON(r.Text)
		if err == nil && sch != nil {
			var inst any
			if err = json.Unmarshal([]byte(js), &inst); err == nil {
				if verr := sch.Validate(inst); verr != nil {
					err = fmt.Errorf("answer does not match the schema: %s: %w", oneLine(verr.Error()), ErrMalformed)
				}
			}
		}
		if err == nil {
			err = decodeStrict([]byte(js), reflect.New(elem).Interface())
		}
		if err != nil && r.Truncated() {
			err = fmt.Errorf("answer cut off at the token limit: %w", err)
		}
		return err
	}
	cur := req
	for i := 1; ; i++ {
		resp, err := c.generate(ctx, cur, accept, dryText)
		if err == nil {
			js, _ := ExtractJSON(resp.Text)
			return resp, decodeStrict([]byte(js), out)
		}
		if !errors.Is(err, ErrMalformed) || i >= c.opts.JSONAttempts {
			return resp, err
		}
		var e *Error
		reason := err.Error()
		if errors.As(err, &e) {
			reason = e.msg
		}
		cur.Messages = append(slices.Clip(req.Messages),
			AssistantMessage(resp.Text),
			UserMessage("Your answer could not be used: "+reason+". Reply again with only the JSON value, nothing else."))
	}
}

// compileSchema returns the validator of an answer schema, compiled once
// a client. The validator is google/jsonschema-go (draft 2020-12), which
// the binary links anyway (the MCP server's) and which, unlike a validator
// that compiles the drafts' meta-schemas when its package initialises,
// costs nothing until a model is asked for JSON.
func (c *Client) compileSchema(s *Schema) (*jsonschema.Resolved, error) {
	key := string(compactJSON(s.JSON))
	c.mu.Lock()
	sch, ok := c.schemas[key]
	c.mu.Unlock()
	if ok {
		return sch, nil
	}
	var doc jsonschema.Schema
	if err := json.Unmarshal([]byte(key), &doc); err != nil {
		return nil, fmt.Errorf("schema %s: %v: %w", s.Name, err, claimtrace.ErrInvalid)
	}
	sch, err := doc.Resolve(&jsonschema.ResolveOptions{})
	if err != nil {
		return nil, fmt.Errorf("schema %s: %v: %w", s.Name, oneLine(err.Error()), claimtrace.ErrInvalid)
	}
	c.mu.Lock()
	c.schemas[key] = sch
	c.mu.Unlock()
	return sch, nil
}

func validateRequest(req Request) error {
	if len(req.Messages) == 0 {
		return fmt.Errorf("request has no messages: %w", claimtrace.ErrInvalid)
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleUser, RoleAssistant:
		case RoleTool:
			if m.ToolCallID == "" {
				return fmt.Errorf("message %d: tool result without tool_call_id: %w", i, claimtrace.ErrInvalid)
			}
		default:
			return fmt.Errorf("message %d: unknown role %q: %w", i, m.Role, claimtrace.ErrInvalid)
		}
	}
	if t := req.Temperature; t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0) || *t < 0) {
		return fmt.Errorf("temperature %v: %w", *t, claimtrace.ErrInvalid)
	}
	if req.MaxTokens < 0 {
		return fmt.Errorf("max tokens %d: %w", req.MaxTokens, claimtrace.ErrInvalid)
	}
	if req.TopLogprobs < 0 || req.TopLogprobs > MaxTopLogprobs {
		return fmt.Errorf("top logprobs %d: want 0 to %d: %w", req.TopLogprobs, MaxTopLogprobs, claimtrace.ErrInvalid)
	}
	return nil
}

// generate is Generate with an acceptance check: an answer accept rejects
// fails with ErrMalformed. Such answers are cached all the same (they were
// paid for), so a rerun replays GenerateJSON's correction dialogue from the
// cache instead of paying for it again. dryText is a dry run's answer to a
// request without a schema.
func (c *Client) generate(ctx context.Context, req Request, accept func(Response) error, dryText string) (Response, error) {
	if err := validateRequest(req); err != nil {
		return Response{}, err
	}
	req = c.withDefaults(req)
	key := Key(c.ep.Provider, c.ep.Model, req)
	start := time.Now()

	if c.opts.Cache != nil && !c.opts.NoCache {
		b, ok, err := c.opts.Cache.Get(ctx, key)
		if err != nil {
			return Response{}, fmt.Errorf("%s: response cache: %w", c.ep, err)
		}
		if r, decoded := decodeAnswer(b); ok && decoded {
			r.Key, r.CacheHit, r.Latency = key, true, time.Since(start)
			err := c.check(accept, r, 0)
			if d := c.opts.DryRun; d != nil {
				d.cached(req.Stage)
				return r, err
			}
			if aerr := c.account(ctx, req, r, err); aerr != nil {
				return r, errors.Join(err, aerr)
			}
			return r, err
		}
	}

	est := EstimateRequest(req, c.price, c.priced)
	if d := c.opts.DryRun; d != nil {
		// Nothing is sent, spent, cached or recorded in the ledger.
		r := d.record(req, est, dryText)
		r.Key, r.Latency = key, time.Since(start)
		return r, c.check(accept, r, 0)
	}
	if err := c.opts.Budget.begin(est.Cost); err != nil {
		return Response{}, fmt.Errorf("%s: %w", c.ep, err)
	}
	resp, attempts, err := c.call(ctx, req, est.InputTokens+est.OutputTokens)
	resp.Key, resp.Attempts, resp.Latency = key, attempts, time.Since(start)
	answered := err == nil
	if answered {
		resp.Cost = c.price.Cost(resp.Usage)
		err = c.check(accept, resp, attempts)
	}
	c.opts.Budget.end(est.Cost, resp.Cost)
	// A finished answer is stored even if the caller's context was
	// cancelled meanwhile: it was paid for.
	keep := context.WithoutCancel(ctx)
	if answered && c.opts.Cache != nil {
		b, eerr := encodeAnswer(resp)
		if eerr == nil {
			eerr = c.opts.Cache.Put(keep, key, b)
		}
		if eerr != nil {
			return resp, errors.Join(err, fmt.Errorf("%s: response cache: %w", c.ep, eerr), c.account(keep, req, resp, err))
		}
	}
	if aerr := c.account(keep, req, resp, err); aerr != nil {
		return resp, errors.Join(err, aerr)
	}
	return resp, err
}

// check applies accept to an answer, turning a rejection into an
// ErrMalformed *Error.
func (c *Client) check(accept func(Response) error, r Response, attempts int) error {
	if accept == nil {
		return nil
	}
	aerr := accept(r)
	if aerr == nil {
		return nil
	}
	return &Error{Provider: c.ep.Provider, Model: c.ep.Model, Kind: ErrMalformed, Attempts: attempts, msg: strings.TrimSuffix(aerr.Error(), ": "+ErrMalformed.Error()), err: aerr}
}

// call makes attempts until one succeeds, a failure is final, or the
// attempts run out. tokens is the estimate charged to the TPM limit.
func (c *Client) call(ctx context.Context, req Request, tokens int64) (Response, int, error) {
	for attempt := 1; ; attempt++ {
		release, err := c.lim.acquire(ctx, tokens, attempt > 1)
		if err != nil {
			return Response{}, attempt - 1, err
		}
		actx, seen := withResponseObserver(ctx)
		start := time.Now()
		resp, err := c.model.Generate(actx, req)
		release(outcome{latency: time.Since(start), err: err, header: seen.last(),
			tokens: resp.Usage.InputTokens + resp.Usage.OutputTokens})
		if err == nil {
			return resp, attempt, nil
		}
		var e *Error
		if !errors.As(err, &e) {
			return Response{}, attempt, err
		}
		e.Attempts = attempt
		if !e.Retryable() || attempt >= c.retry.MaxAttempts {
			return Response{}, attempt, e
		}
		delay, ok := c.backoff(attempt, e)
		if !ok {
			return Response{}, attempt, e
		}
		if err := c.opts.Sleep(ctx, delay); err != nil {
			return Response{}, attempt, err
		}
	}
}

// backoff returns the delay before attempt+1: the provider's requested
// delay plus up to 10% jitter when it gave one (ok false when that is
// longer than MaxRetryAfter), else jittered exponential backoff.
func (c *Client) backoff(attempt int, e *Error) (time.Duration, bool) {
	if e.RetryAfter > 0 {
		if e.RetryAfter > c.retry.MaxRetryAfter {
			return 0, false
		}
		return e.RetryAfter + time.Duration(rand.Float64()*0.1*float64(e.RetryAfter)), true
	}
	d := c.retry.BaseDelay << min(attempt-1, 20)
	if d <= 0 || d > c.retry.MaxDelay {
		d = c.retry.MaxDelay
	}
	return d/2 + time.Duration(rand.Float64()*float64(d/2)), true
}

// account adds the call to the totals and records it in the ledger.
func (c *Client) account(ctx context.Context, req Request, r Response, callErr error) error {
	rec := claimtrace.LLMCall{
		Key: r.Key, Run: c.opts.Run, Stage: req.Stage,
		Provider: string(c.ep.Provider), Model: c.ep.Model,
		Latency: r.Latency, CacheHit: r.CacheHit, Attempts: r.Attempts,
		At: c.opts.Now().UTC(),
	}
	if !r.CacheHit {
		rec.InputTokens = r.Usage.InputTokens
		rec.OutputTokens = r.Usage.OutputTokens
		rec.CachedTokens = r.Usage.CachedTokens
		rec.ReasoningTokens = r.Usage.ReasoningTokens
		rec.Cost = r.Cost
	}
	if callErr != nil {
		rec.Err = callErr.Error()
	}
	c.mu.Lock()
	c.totals.Add(rec)
	c.mu.Unlock()
	if c.opts.Ledger == nil {
		return nil
	}
	if err := c.opts.Ledger.Record(ctx, rec); err != nil {
		return fmt.Errorf("%s: record call: %w", c.ep, err)
	}
	return nil
}

func oneLine(s string) string {
	return truncate(strings.Join(strings.Fields(s), " "), 300)
}
