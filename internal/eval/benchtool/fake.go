package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeOptions shape the fake provider: how long an answer and a search
// take, and the account's rate limits (0: none).
type fakeOptions struct {
	// Latency is the time a model answer takes; SearchLatency a search.
	Latency       time.Duration
	SearchLatency time.Duration
	// RPM and TPM are each model's requests and tokens per minute, counted
	// over the last minute as OpenAI does; a request over either is
	// answered 429 with OpenAI's headers. Every answer carries the
	// x-ratelimit-* headers when a limit is set.
	RPM, TPM int
	// CheckWorthyRate is the share of claims the fake classifier calls
	// check-worthy.
	CheckWorthyRate float64
	// Attribute maps a claim as prompts show it to the report it comes
	// from, so calls can be counted per report.
	Attribute map[string]string
}

// fake is a counting OpenAI-compatible chat completions server with a
// SearXNG-style search endpoint. It answers every prompt claimtrace sends
// with a valid answer (answer.go) after a fixed latency, and counts calls,
// tokens, searches and requests in flight, by model, by answer schema and
// by report.
type fake struct {
	opt fakeOptions

	mu        sync.Mutex
	stats     fakeStats
	votes     map[string]int         // (model, statement) → votes answered
	window    map[string][]usedQuota // per model: the last minute's requests
	answered  map[string][]time.Time // per model: when each answer started
	inflight  int
	started   time.Time
	lastLimit time.Time
}

// usedQuota is one admitted request in the rate-limit window.
type usedQuota struct {
	at     time.Time
	tokens int64
}

// fakeStats are the server's counts.
type fakeStats struct {
	Calls            int64            `json:"calls"`
	Answered         int64            `json:"answered"`
	RateLimited      int64            `json:"rate_limited"`
	PromptTokens     int64            `json:"prompt_tokens"`
	CompletionTokens int64            `json:"completion_tokens"`
	Searches         int64            `json:"searches"`
	MaxInFlight      int              `json:"max_in_flight"`
	ByModel          map[string]int64 `json:"by_model"`
	BySchema         map[string]int64 `json:"by_schema"`
	// ByReport counts answered calls and their prompt tokens per report;
	// Unattributed counts the calls no claim of a report was found in.
	ByReport       map[string]int64 `json:"-"`
	TokensByReport map[string]int64 `json:"-"`
	Unattributed   int64            `json:"unattributed"`
	// Seconds is the time from the first to the last request.
	Seconds float64 `json:"seconds"`
	// InFlight samples the requests in flight once a second, per model.
	InFlight map[string][]int `json:"-"`
}

func newFake(opt fakeOptions) *fake {
	return &fake{opt: opt, votes: map[string]int{}, window: map[string][]usedQuota{}, answered: map[string][]time.Time{},
		stats: fakeStats{ByModel: map[string]int64{}, BySchema: map[string]int64{}, ByReport: map[string]int64{}, TokensByReport: map[string]int64{}}}
}

// busiestMinute returns the most requests one model had admitted in any
// 60-second window.
func (f *fake) busiestMinute() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	best := 0
	for _, ts := range f.answered {
		j := 0
		for i := range ts {
			for ts[i].Sub(ts[j]) >= time.Minute {
				j++
			}
			best = max(best, i-j+1)
		}
	}
	return best
}

// Stats returns a copy of the counts so far.
func (f *fake) Stats() fakeStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.ByModel, s.BySchema = clone(s.ByModel), clone(s.BySchema)
	s.ByReport, s.TokensByReport = clone(s.ByReport), clone(s.TokensByReport)
	return s
}

func clone(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		f.chat(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/search":
		f.search(w, r)
	default:
		http.Error(w, "benchtool fake: no such endpoint: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

// chatRequest is the part of a chat completions request the fake reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// text returns the content of message i as text (a string, or the text
// parts of a content array).
func (c chatRequest) text(i int) string {
	raw := c.Messages[i].Content
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// firstUser returns the first user message: the one that carries the
// task (a re-ask appends to it).
func (c chatRequest) firstUser() string {
	for i, m := range c.Messages {
		if m.Role == "user" {
			return c.text(i)
		}
	}
	return ""
}

func (f *fake) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", "could not parse the request body", nil)
		return
	}
	var prompt strings.Builder
	for i := range req.Messages {
		prompt.WriteString(req.text(i))
	}
	promptTokens := int64(prompt.Len()/4 + 1)
	schemaName := "text"
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		schemaName = rf.JSONSchema.Name
	}

	f.mu.Lock()
	now := time.Now()
	if f.started.IsZero() {
		f.started = now
	}
	f.stats.Calls++
	hdr, limited := f.admit(req.Model, now, promptTokens)
	if limited {
		f.stats.RateLimited++
		f.stats.Seconds = now.Sub(f.started).Seconds()
		f.mu.Unlock()
		writeOpenAIError(w, http.StatusTooManyRequests, "rate_limit_exceeded",
			fmt.Sprintf("Rate limit reached for %s on requests per min (RPM): Limit %d. Please try again in %s.", req.Model, f.opt.RPM, hdr.Get("x-ratelimit-reset-requests")), hdr)
		return
	}
	f.inflight++
	f.stats.MaxInFlight = max(f.stats.MaxInFlight, f.inflight)
	f.answered[req.Model] = append(f.answered[req.Model], now)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()

	text := f.answer(req)
	t := time.NewTimer(f.opt.Latency)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		return
	}
	completion := int64(len(text)/4 + 1)

	f.mu.Lock()
	f.stats.Answered++
	f.stats.PromptTokens += promptTokens
	f.stats.CompletionTokens += completion
	f.stats.ByModel[req.Model]++
	f.stats.BySchema[schemaName]++
	if rep := f.attribute(req.firstUser()); rep != "" {
		f.stats.ByReport[rep]++
		f.stats.TokensByReport[rep] += promptTokens
	} else {
		f.stats.Unattributed++
	}
	f.stats.Seconds = time.Since(f.started).Seconds()
	f.mu.Unlock()

	resp := map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": text, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": completion, "total_tokens": promptTokens + completion},
	}
	b, _ := json.Marshal(resp)
	for k, v := range hdr {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// admit applies the rate limits to one request of model at now, with
// tokens of prompt, and returns the x-ratelimit-* headers and whether
// the request is refused. The window is the last minute; the caller holds
// f.mu.
func (f *fake) admit(model string, now time.Time, tokens int64) (http.Header, bool) {
	if f.opt.RPM <= 0 && f.opt.TPM <= 0 {
		return nil, false
	}
	win := f.window[model]
	cut := 0
	for cut < len(win) && now.Sub(win[cut].at) >= time.Minute {
		cut++
	}
	win = win[cut:]
	var used int64
	for _, u := range win {
		used += u.tokens
	}
	reqLimit, tokLimit := int64(f.opt.RPM), int64(f.opt.TPM)
	if reqLimit <= 0 {
		reqLimit = math.MaxInt32
	}
	if tokLimit <= 0 {
		tokLimit = math.MaxInt32
	}
	limited := int64(len(win)) >= reqLimit || used+tokens > tokLimit
	if !limited {
		win = append(win, usedQuota{at: now, tokens: tokens})
		used += tokens
	}
	f.window[model] = win
	reset := time.Duration(0)
	if len(win) > 0 {
		reset = time.Minute - now.Sub(win[0].at)
	}
	h := http.Header{}
	h.Set("x-ratelimit-limit-requests", strconv.FormatInt(reqLimit, 10))
	h.Set("x-ratelimit-remaining-requests", strconv.FormatInt(max(0, reqLimit-int64(len(win))), 10))
	h.Set("x-ratelimit-reset-requests", openAIDuration(reset))
	h.Set("x-ratelimit-limit-tokens", strconv.FormatInt(tokLimit, 10))
	h.Set("x-ratelimit-remaining-tokens", strconv.FormatInt(max(0, tokLimit-used), 10))
	h.Set("x-ratelimit-reset-tokens", openAIDuration(reset))
	if limited {
		f.lastLimit = now
		// The oldest request leaves the window first.
		h.Set("retry-after-ms", strconv.FormatInt(max(reset.Milliseconds(), 1), 10))
	}
	return h, limited
}

// openAIDuration writes d the way OpenAI's reset headers do: "1s",
// "6m0s", "120ms".
func openAIDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "ms"
	}
	return d.Round(100 * time.Millisecond).String()
}

func writeOpenAIError(w http.ResponseWriter, status int, code, msg string, hdr http.Header) {
	for k, v := range hdr {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "requests", "param": nil, "code": code}})
	w.Write(b)
}

// search answers GET /search?q=…&format=json as SearXNG does, with five
// results of typical size, after SearchLatency.
func (f *fake) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("format") != "json" {
		http.Error(w, "format must be json", http.StatusForbidden)
		return
	}
	query := q.Get("q")
	f.mu.Lock()
	f.stats.Searches++
	f.mu.Unlock()
	t := time.NewTimer(f.opt.SearchLatency)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		return
	}
	words := strings.Fields(query)
	var results []any
	for i := range 5 {
		snippet := strings.Join(words, " ")
		for len(snippet) < 250 {
			snippet += " — a source that discusses " + strings.Join(words[:min(len(words), 6)], " ")
		}
		results = append(results, map[string]any{
			"title":   fmt.Sprintf("Result %d about %s", i+1, strings.Join(words[:min(len(words), 8)], " ")),
			"url":     fmt.Sprintf("https://search.example/%08x/%d", hash32(query), i+1),
			"content": snippet[:250],
			"engine":  "fake",
		})
	}
	b, _ := json.Marshal(map[string]any{"query": query, "number_of_results": len(results), "results": results})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// attribute finds the report of the first statement a prompt shows.
func (f *fake) attribute(prompt string) string {
	if len(f.opt.Attribute) == 0 {
		return ""
	}
	for _, s := range statements(prompt) {
		if rep, ok := f.opt.Attribute[s.text]; ok {
			return rep
		}
	}
	return ""
}

// sampleInFlight records how many requests are in flight, once a second,
// until stop is closed.
func (f *fake) sampleInFlight(stop <-chan struct{}) []int {
	var out []int
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-t.C:
			f.mu.Lock()
			out = append(out, f.inflight)
			f.mu.Unlock()
		}
	}
}

// percentile returns the p-th percentile of xs (0..100), nearest rank.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
