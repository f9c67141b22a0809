package llmtest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// Fault is an injected failure.
type Fault int

// Faults. Each is rendered in the provider's real error shape.
const (
	NoFault        Fault = iota
	RateLimit            // 429 (Retry-After / retry-after-ms headers; Gemini RESOURCE_EXHAUSTED with RetryInfo)
	Overloaded           // Anthropic 529 overloaded_error; OpenAI and Gemini 503
	ServerError          // 500
	BadGateway           // 502 with an HTML body (a proxy in the way)
	ContextLength        // the provider's "prompt too long" 400
	Unauthorized         // 401 (Gemini: 400 API_KEY_INVALID); echoes the key sent
	QuotaExceeded        // OpenAI 429 insufficient_quota; Gemini 429 with an hour-long RetryInfo; Anthropic credit balance 400
	ModelNotFound        // 404
	BadRequest           // a plain 400
	DropConnection       // the connection closes without an answer
	Truncated            // half of a valid answer, then the connection closes
	NonJSON              // 200 with an HTML body
)

// ToolCall is a scripted function call.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON object
}

// Citation is a scripted web citation of Text[Start:End] (byte offsets).
// Quote is the cited source text (Anthropic cited_text).
type Citation struct {
	URL, Title string
	Start, End int
	Quote      string
}

// Usage is scripted token usage; Input includes Cached and Output
// includes Reasoning, as in claimtrace's normalised llm.Usage.
type Usage struct {
	Input, Output, Cached, Reasoning int64
}

// Reply is a scripted answer or fault.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Citations []Citation
	Searches  []string
	// Usage defaults to body bytes/4 in and Text bytes/4 out.
	Usage *Usage
	// Finish is "" (stop), "length" (cut at the token cap) or "tool_calls".
	Finish string
	// Model is the served model name (default: the requested one).
	Model string
	// Logprobs are the answer tokens' log-probabilities, sent (OpenAI chat
	// completions) when the request asks for them ("logprobs": true), with
	// as many alternatives as its "top_logprobs" asks.
	Logprobs []Logprob

	Fault Fault
	// RetryAfter goes with RateLimit and Overloaded: Retry-After and
	// retry-after-ms headers (OpenAI, Anthropic) or RetryInfo (Gemini).
	RetryAfter time.Duration
	// Delay is how long the server waits before answering.
	Delay time.Duration
	// Header is added to the answer, a fault's included: the providers'
	// rate-limit headers (x-ratelimit-*, anthropic-ratelimit-*).
	Header map[string]string
}

// Logprob is a scripted answer token with its log-probability and the
// likeliest tokens at its place.
type Logprob struct {
	Token   string
	Logprob float64
	Top     []Logprob
}

// Text is a plain answer.
func Text(s string) Reply { return Reply{Text: s} }

// Fail is a fault.
func Fail(f Fault) Reply { return Reply{Fault: f} }

// RateLimited is a 429 asking to retry after d.
func RateLimited(d time.Duration) Reply { return Reply{Fault: RateLimit, RetryAfter: d} }

// Slow delays r by d.
func Slow(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// Tools is an answer made of function calls.
func Tools(calls ...ToolCall) Reply { return Reply{ToolCalls: calls, Finish: "tool_calls"} }

// Web is a web-search answer with citations; the searches default to one.
func Web(text string, cites ...Citation) Reply {
	return Reply{Text: text, Citations: cites, Searches: []string{"query"}}
}

// runeIndex converts a byte offset of s to a code-point index.
func runeIndex(s string, b int) int {
	b = max(0, min(b, len(s)))
	return utf8.RuneCountInString(s[:b])
}

func rawArgs(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// chatLogprobs renders r's logprobs as chat completions do, with at most
// top alternatives a token; nil when the request did not ask (asked).
func chatLogprobs(r Reply, asked bool, top int) any {
	if !asked {
		return nil
	}
	tokenBytes := func(s string) []int {
		out := []int{}
		for _, b := range []byte(s) {
			out = append(out, int(b))
		}
		return out
	}
	content := []any{}
	for _, lp := range r.Logprobs {
		alts := []any{}
		for i, a := range lp.Top {
			if i >= top {
				break
			}
			alts = append(alts, map[string]any{"token": a.Token, "logprob": a.Logprob, "bytes": tokenBytes(a.Token)})
		}
		content = append(content, map[string]any{"token": lp.Token, "logprob": lp.Logprob, "bytes": tokenBytes(lp.Token), "top_logprobs": alts})
	}
	return map[string]any{"content": content, "refusal": nil}
}

func openAIChatBody(r Reply, seq int, logprobs any) any {
	finish := "stop"
	switch r.Finish {
	case "length", "tool_calls":
		finish = r.Finish
	}
	msg := map[string]any{"role": "assistant", "content": r.Text, "refusal": nil}
	if r.Text == "" && len(r.ToolCalls) > 0 {
		msg["content"] = nil
	}
	var anns []any
	for _, c := range r.Citations {
		anns = append(anns, map[string]any{"type": "url_citation", "url_citation": map[string]any{
			"start_index": runeIndex(r.Text, c.Start), "end_index": runeIndex(r.Text, c.End), "url": c.URL, "title": c.Title,
		}})
	}
	if anns != nil {
		msg["annotations"] = anns
	}
	var tcs []any
	for _, tc := range r.ToolCalls {
		tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": string(rawArgs(tc.Arguments))}})
	}
	if tcs != nil {
		msg["tool_calls"] = tcs
	}
	u := r.Usage
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", seq), "object": "chat.completion", "created": 1767225600, "model": r.Model,
		"system_fingerprint": "fp_llmtest",
		"choices":            []any{map[string]any{"index": 0, "finish_reason": finish, "logprobs": logprobs, "message": msg}},
		"usage": map[string]any{
			"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
			"prompt_tokens_details":     map[string]any{"cached_tokens": u.Cached},
			"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		},
	}
}

func openAIResponsesBody(r Reply, seq int) any {
	var out []any
	for i, q := range r.Searches {
		var sources []any
		for _, c := range r.Citations {
			sources = append(sources, map[string]any{"type": "url", "url": c.URL})
		}
		out = append(out, map[string]any{"type": "web_search_call", "id": fmt.Sprintf("ws_%d", i), "status": "completed",
			"action": map[string]any{"type": "search", "query": q, "queries": []string{q}, "sources": sources}})
	}
	for i, tc := range r.ToolCalls {
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i), "call_id": tc.ID, "name": tc.Name, "arguments": string(rawArgs(tc.Arguments)), "status": "completed"})
	}
	if r.Text != "" || len(r.ToolCalls) == 0 {
		anns := []any{}
		for _, c := range r.Citations {
			anns = append(anns, map[string]any{"type": "url_citation", "start_index": runeIndex(r.Text, c.Start), "end_index": runeIndex(r.Text, c.End), "url": c.URL, "title": c.Title})
		}
		out = append(out, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", seq), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": anns, "logprobs": []any{}}}})
	}
	status, incomplete := "completed", any(nil)
	if r.Finish == "length" {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	u := r.Usage
	return map[string]any{
		"id": fmt.Sprintf("resp_%d", seq), "object": "response", "created_at": 1767225600, "status": status, "model": r.Model,
		"output": out, "error": nil, "incomplete_details": incomplete, "instructions": nil, "metadata": map[string]any{},
		"parallel_tool_calls": true, "temperature": 1, "top_p": 1, "tool_choice": "auto", "tools": []any{},
		"usage": map[string]any{
			"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			"total_tokens": u.Input + u.Output,
		},
	}
}

func geminiBody(r Reply, seq int) any {
	var parts []any
	if r.Text != "" {
		parts = append(parts, map[string]any{"text": r.Text})
	}
	for _, tc := range r.ToolCalls {
		var args map[string]any
		json.Unmarshal(rawArgs(tc.Arguments), &args)
		fc := map[string]any{"name": tc.Name, "args": args}
		if tc.ID != "" {
			fc["id"] = tc.ID
		}
		parts = append(parts, map[string]any{"functionCall": fc, "thoughtSignature": "c2lnbmF0dXJl"})
	}
	finish := "STOP"
	if r.Finish == "length" {
		finish = "MAX_TOKENS"
	}
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
	if len(r.Searches) > 0 || len(r.Citations) > 0 {
		var chunks, supports []any
		chunkOf := map[string]int{}
		for _, c := range r.Citations {
			i, ok := chunkOf[c.URL]
			if !ok {
				i = len(chunks)
				chunkOf[c.URL] = i
				chunks = append(chunks, map[string]any{"web": map[string]any{"uri": c.URL, "title": c.Title}})
			}
			seg := map[string]any{"endIndex": c.End, "text": r.Text[c.Start:c.End]}
			if c.Start != 0 { // proto3 JSON omits zero values
				seg["startIndex"] = c.Start
			}
			supports = append(supports, map[string]any{"segment": seg, "groundingChunkIndices": []int{i}})
		}
		cand["groundingMetadata"] = map[string]any{
			"webSearchQueries": r.Searches, "groundingChunks": chunks, "groundingSupports": supports,
			"searchEntryPoint": map[string]any{"renderedContent": "<div>search</div>"},
		}
	}
	u := r.Usage
	usage := map[string]any{"promptTokenCount": u.Input, "candidatesTokenCount": u.Output - u.Reasoning, "totalTokenCount": u.Input + u.Output}
	if u.Cached > 0 {
		usage["cachedContentTokenCount"] = u.Cached
	}
	if u.Reasoning > 0 {
		usage["thoughtsTokenCount"] = u.Reasoning
	}
	return map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": r.Model, "responseId": fmt.Sprintf("resp-%d", seq)}
}

func anthropicBody(r Reply, seq int) any {
	var content []any
	for i, q := range r.Searches {
		id := fmt.Sprintf("srvtoolu_%d", i)
		content = append(content, map[string]any{"type": "server_tool_use", "id": id, "name": "web_search", "input": map[string]any{"query": q}})
		var results []any
		for _, c := range r.Citations {
			results = append(results, map[string]any{"type": "web_search_result", "url": c.URL, "title": c.Title, "encrypted_content": "ZW5j", "page_age": nil})
		}
		content = append(content, map[string]any{"type": "web_search_tool_result", "tool_use_id": id, "content": results})
	}
	// Split the text into blocks at citation spans: Anthropic attaches
	// citations to whole text blocks.
	cites := append([]Citation(nil), r.Citations...)
	sort.SliceStable(cites, func(i, j int) bool { return cites[i].Start < cites[j].Start })
	pos := 0
	for i := 0; i < len(cites); {
		c := cites[i]
		if c.Start > pos {
			content = append(content, map[string]any{"type": "text", "text": r.Text[pos:c.Start]})
		}
		var cs []any
		for ; i < len(cites) && cites[i].Start == c.Start && cites[i].End == c.End; i++ {
			cs = append(cs, map[string]any{"type": "web_search_result_location", "url": cites[i].URL, "title": cites[i].Title, "encrypted_index": "aWR4", "cited_text": cites[i].Quote})
		}
		content = append(content, map[string]any{"type": "text", "text": r.Text[c.Start:c.End], "citations": cs})
		pos = c.End
	}
	if pos < len(r.Text) || len(content) == 0 && len(r.ToolCalls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": r.Text[pos:]})
	}
	for _, tc := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": rawArgs(tc.Arguments)})
	}
	stop := "end_turn"
	switch r.Finish {
	case "length":
		stop = "max_tokens"
	case "tool_calls":
		stop = "tool_use"
	}
	u := r.Usage
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", seq), "type": "message", "role": "assistant", "model": r.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": u.Input - u.Cached, "output_tokens": u.Output,
			"cache_read_input_tokens": u.Cached, "cache_creation_input_tokens": 0,
			"server_tool_use": map[string]any{"web_search_requests": len(r.Searches), "web_fetch_requests": 0},
		},
	}
}

// errorReply renders a fault as status, headers and body.
func errorReply(c Call, r Reply) (int, map[string]string, []byte) {
	hdr := map[string]string{}
	if r.RetryAfter > 0 && c.Protocol != Gemini {
		hdr["Retry-After"] = strconv.Itoa(int(math.Ceil(r.RetryAfter.Seconds())))
		hdr["retry-after-ms"] = strconv.FormatInt(r.RetryAfter.Milliseconds(), 10)
	}
	var status int
	var body any
	switch c.Protocol {
	case Gemini:
		status, body = geminiError(c, r)
	case Anthropic:
		status, body = anthropicError(c, r)
	default:
		status, body = openAIError(c, r)
	}
	b, _ := json.Marshal(body)
	return status, hdr, b
}

func openAIError(c Call, r Reply) (int, any) {
	e := func(status int, msg, typ string, param, code any) (int, any) {
		return status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": code}}
	}
	switch r.Fault {
	case RateLimit:
		return e(http.StatusTooManyRequests, "Rate limit reached for "+c.Model+" on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 1s.", "requests", nil, "rate_limit_exceeded")
	case QuotaExceeded:
		return e(http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", nil, "insufficient_quota")
	case Overloaded:
		return e(http.StatusServiceUnavailable, "The engine is currently overloaded, please try again later.", "server_error", nil, nil)
	case ContextLength:
		return e(http.StatusBadRequest, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", "invalid_request_error", "messages", "context_length_exceeded")
	case Unauthorized:
		return e(http.StatusUnauthorized, "Incorrect API key provided: "+c.APIKey+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", nil, "invalid_api_key")
	case ModelNotFound:
		return e(http.StatusNotFound, "The model `"+c.Model+"` does not exist or you do not have access to it.", "invalid_request_error", nil, "model_not_found")
	case BadRequest:
		return e(http.StatusBadRequest, "Invalid value for 'temperature': must be between 0 and 2.", "invalid_request_error", "temperature", "invalid_value")
	}
	return e(http.StatusInternalServerError, "The server had an error while processing your request. Sorry about that!", "server_error", nil, nil)
}

func geminiError(c Call, r Reply) (int, any) {
	e := func(code int, msg, status string, details ...any) (int, any) {
		m := map[string]any{"code": code, "message": msg, "status": status}
		if len(details) > 0 {
			m["details"] = details
		}
		return code, map[string]any{"error": m}
	}
	retryInfo := func(d time.Duration) any {
		return map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"}
	}
	switch r.Fault {
	case RateLimit:
		d := r.RetryAfter
		if d == 0 {
			return e(http.StatusTooManyRequests, "Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED")
		}
		return e(http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details.", "RESOURCE_EXHAUSTED",
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}},
			retryInfo(d))
	case QuotaExceeded:
		return e(http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details.", "RESOURCE_EXHAUSTED",
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}},
			retryInfo(time.Hour))
	case Overloaded:
		return e(http.StatusServiceUnavailable, "The model is overloaded. Please try again later.", "UNAVAILABLE")
	case ContextLength:
		return e(http.StatusBadRequest, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "INVALID_ARGUMENT")
	case Unauthorized:
		return e(http.StatusBadRequest, "API key not valid. Please pass a valid API key. (key: "+c.APIKey+")", "INVALID_ARGUMENT",
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"})
	case ModelNotFound:
		return e(http.StatusNotFound, "models/"+c.Model+" is not found for API version v1beta, or is not supported for generateContent.", "NOT_FOUND")
	case BadRequest:
		return e(http.StatusBadRequest, "Invalid JSON payload received. Unknown name \"foo\": Cannot find field.", "INVALID_ARGUMENT")
	}
	return e(http.StatusInternalServerError, "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", "INTERNAL")
}

func anthropicError(c Call, r Reply) (int, any) {
	e := func(status int, typ, msg string) (int, any) {
		return status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	}
	switch r.Fault {
	case RateLimit:
		return e(http.StatusTooManyRequests, "rate_limit_error", "This request would exceed the rate limit for your organization of 50 requests per minute.")
	case QuotaExceeded:
		return e(http.StatusBadRequest, "invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
	case Overloaded:
		return e(529, "overloaded_error", "Overloaded")
	case ContextLength:
		return e(http.StatusBadRequest, "invalid_request_error", "prompt is too long: 215000 tokens > 200000 maximum")
	case Unauthorized:
		return e(http.StatusUnauthorized, "authentication_error", "invalid x-api-key: "+c.APIKey)
	case ModelNotFound:
		return e(http.StatusNotFound, "not_found_error", "model: "+c.Model)
	case BadRequest:
		return e(http.StatusBadRequest, "invalid_request_error", "max_tokens: Field required")
	}
	return e(http.StatusInternalServerError, "api_error", "Internal server error")
}
