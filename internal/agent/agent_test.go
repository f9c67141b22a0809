package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/agent"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

// roles lists a transcript's roles, marking tool outcomes and the final
// message.
func roles(rec *agent.Record) []string {
	var out []string
	for _, t := range rec.Transcript {
		r := t.Role
		switch {
		case t.Role == "tool":
			r += ":" + t.Tool + ":" + t.Outcome
		case t.Final:
			r += ":final"
		case len(t.ToolCalls) > 0:
			var names []string
			for _, tc := range t.ToolCalls {
				names = append(names, tc.Name)
			}
			r += ":" + strings.Join(names, "+")
		}
		out = append(out, r)
	}
	return out
}

func TestToolLoopOnEveryProvider(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			fx := newFixture(t, f)
			paper := fx.pages.URL + "/paper/7"
			fx.search.Enqueue(searchtest.Results(search.Result{Title: "Radar Paper 7", URL: paper, Snippet: "Radar point clouds."}))
			final := "## Radar representations\n\nRadar point clouds reach 71.7 percent accuracy [1](" + paper + ")."
			fx.llm.Enqueue(
				llmtest.Tools(search1("call_1", "radar point cloud autonomous driving")),
				llmtest.Tools(read1("call_2", paper)),
				llmtest.Text(final),
			)
			rec, err := fx.agent(5).Run(t.Context(), task("2312.04861"))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if rec.Status != agent.StatusDone || rec.Response != final || rec.ToolCalls != 2 {
				t.Fatalf("record: status %q, %d tool calls, response %q, error %q", rec.Status, rec.ToolCalls, rec.Response, rec.Error)
			}
			want := []string{"system", "user", "assistant:search", "tool:search:ok", "assistant:read", "tool:read:ok", "assistant"}
			if diff := cmp.Diff(want, roles(rec)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			// The search ran once with the model's query; the page was read
			// through the fetcher.
			if reqs := fx.search.Requests(); len(reqs) != 1 || reqs[0].Q != "radar point cloud autonomous driving" || reqs[0].Query.Get("num") != "3" {
				t.Errorf("search requests = %+v", reqs)
			}
			if fx.pages.total() != 1 {
				t.Errorf("page server hits = %d, want 1", fx.pages.total())
			}
			calls := fx.llm.Calls()
			if len(calls) != 3 {
				t.Fatalf("%d model requests, want 3", len(calls))
			}
			for i, c := range calls {
				if diff := cmp.Diff([]string{"search", "read"}, declaredTools(t, c)); diff != "" {
					t.Errorf("request %d tools (-want +got):\n%s", i, diff)
				}
			}
			// Each tool result reached the model in the next request.
			if !strings.Contains(string(calls[1].Body), "Radar Paper 7") || !strings.Contains(string(calls[2].Body), "detection accuracy of 71.7 percent") {
				t.Errorf("tool results missing from the follow-up requests")
			}
			// The prompt carries the benchmark's rules and the URL instruction.
			for _, s := range []string{"Do not refer to the survey titled ``Exploring Radar Data Representations", "English language survey with citations", "full URL"} {
				if !strings.Contains(rec.Prompt, s) {
					t.Errorf("prompt lacks %q", s)
				}
			}
			// Transcript details: the tool turns carry what the model saw.
			search, read := rec.Transcript[3], rec.Transcript[5]
			if search.Query != "radar point cloud autonomous driving" || len(search.Results) != 1 || search.Results[0].URL != paper {
				t.Errorf("search turn = %+v", search)
			}
			if read.URL != paper || read.Title != "Radar Paper 7" || !strings.Contains(read.Content, "bird's-eye view") || read.Truncated {
				t.Errorf("read turn = %+v", read)
			}
			if rec.Usage.Calls != 3 || rec.Usage.InputTokens == 0 || rec.Transcript[2].Call == nil || !rec.Transcript[2].Call.ToolsOffered {
				t.Errorf("usage %+v, first call %+v", rec.Usage, rec.Transcript[2].Call)
			}
			if rec.Model != f.name+":test-model" || rec.Search != "serpapi" || rec.Reader != "builtin" || rec.MaxToolCalls != 5 || rec.TemplateSHA256 == "" {
				t.Errorf("record header = %+v", rec)
			}
		})
	}
}

// TestBudgetForcesFinalAnswer: a model that always wants another search
// gets exactly the budget, then one request without tools.
func TestBudgetForcesFinalAnswer(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			fx := newFixture(t, f)
			n := 0
			fx.llm.Handle(func(_ context.Context, c llmtest.Call) llmtest.Reply {
				if len(declaredTools(t, c)) > 0 {
					n++
					return llmtest.Tools(search1("call_"+string(rune('a'+n)), "radar query "+string(rune('a'+n))))
				}
				return llmtest.Text("Final survey citing [1](https://example.org/radar-query-b/1).")
			})
			const budget = 3
			rec, err := fx.agent(budget).Run(t.Context(), task("2312.04861"))
			if err != nil || rec.Status != agent.StatusDone {
				t.Fatalf("Run = %+v, %v", rec, err)
			}
			if got := len(fx.search.Requests()); got != budget || rec.ToolCalls != budget {
				t.Errorf("%d searches run, %d counted, want %d", got, rec.ToolCalls, budget)
			}
			calls := fx.llm.Calls()
			if len(calls) != budget+1 {
				t.Fatalf("%d model requests, want %d", len(calls), budget+1)
			}
			last := calls[budget]
			if tools := declaredTools(t, last); len(tools) != 0 {
				t.Errorf("final request offers tools %v", tools)
			}
			if hasToolBlocks(last) {
				t.Errorf("final request still holds structured tool calls or results (Anthropic refuses them without tools):\n%s", last.Body)
			}
			for _, s := range []string{"You have made 3 of your 3 tool calls", `[3] search("radar query d")`, "Result 1 for radar query b", "Do not call any tools"} {
				if !strings.Contains(last.Prompt, s) {
					t.Errorf("final message lacks %q:\n%s", s, last.Prompt)
				}
			}
			want := []string{"system", "user", "assistant:search", "tool:search:ok", "assistant:search", "tool:search:ok", "assistant:search", "tool:search:ok", "system", "user:final", "assistant"}
			if diff := cmp.Diff(want, roles(rec)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeveralCallsInOneTurn: every call counts; calls beyond the budget
// are answered without being run.
func TestSeveralCallsInOneTurn(t *testing.T) {
	fx := newFixture(t, flavours[0])
	paper := fx.pages.URL + "/paper/3"
	fx.llm.Enqueue(
		llmtest.Tools(search1("c1", "radar tensors"), search1("c2", "radar grid maps"), read1("c3", paper)),
		llmtest.Text("Survey [1](https://example.org/radar-tensors/1)."),
	)
	rec, err := fx.agent(2).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusDone {
		t.Fatalf("Run = %+v, %v", rec, err)
	}
	want := []string{"system", "user", "assistant:search+search+read", "tool:search:ok", "tool:search:ok", "tool:read:budget_exhausted", "system", "user:final", "assistant"}
	if diff := cmp.Diff(want, roles(rec)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if rec.ToolCalls != 2 || len(fx.search.Requests()) != 2 || fx.pages.total() != 0 {
		t.Errorf("tool calls %d, searches %d, page hits %d; want 2, 2, 0", rec.ToolCalls, len(fx.search.Requests()), fx.pages.total())
	}
	if c := rec.Transcript[5].Content; !strings.Contains(c, "budget is exhausted") {
		t.Errorf("over-budget result = %q", c)
	}

	// Within the budget, all calls of one turn run, each counted.
	fx2 := newFixture(t, flavours[2])
	paper2 := fx2.pages.URL + "/paper/4"
	fx2.llm.Enqueue(
		llmtest.Tools(search1("c1", "a"), search1("c2", "b"), read1("c3", paper2)),
		llmtest.Text("Survey [1]("+paper2+")."),
	)
	rec, err = fx2.agent(5).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.ToolCalls != 3 || fx2.pages.total() != 1 {
		t.Fatalf("Run = %d tool calls, %d page hits, %v", rec.ToolCalls, fx2.pages.total(), err)
	}
	// The answer after the tools came in the ordinary conversation, with
	// tools still offered (budget not spent).
	calls := fx2.llm.Calls()
	if len(calls) != 2 || len(declaredTools(t, calls[1])) != 2 || !hasToolBlocks(calls[1]) {
		t.Errorf("second request should continue the tool conversation")
	}
}

func TestContextLengthEndsTheTask(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			fx := newFixture(t, f)
			fx.llm.Enqueue(llmtest.Tools(read1("c1", fx.pages.URL+"/paper/long1")))
			fx.llm.Handle(func(context.Context, llmtest.Call) llmtest.Reply { return llmtest.Fail(llmtest.ContextLength) })
			rec, err := fx.agent(5).Run(t.Context(), task("2312.04861"))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if rec.Status != agent.StatusContextLength || rec.Response != "" || !strings.Contains(rec.Error, "context length") {
				t.Errorf("record = status %q, response %q, error %q", rec.Status, rec.Response, rec.Error)
			}
			if n := len(fx.llm.Calls()); n != 2 {
				t.Errorf("%d model requests, want 2: a context-length error is never retried or looped on", n)
			}
			last := rec.Transcript[len(rec.Transcript)-1]
			if last.Role != "assistant" || last.Call == nil || last.Call.Error == "" {
				t.Errorf("the failed call is not in the transcript: %+v", last)
			}
		})
	}
}

func TestNoToolsWithZeroBudget(t *testing.T) {
	fx := newFixture(t, flavours[1])
	fx.llm.Enqueue(llmtest.Text("A survey from memory."))
	rec, err := fx.agent(0).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusDone || rec.Search != "none" {
		t.Fatalf("Run = %+v, %v", rec, err)
	}
	calls := fx.llm.Calls()
	if len(calls) != 1 || len(declaredTools(t, calls[0])) != 0 {
		t.Errorf("want one request without tools")
	}
}

func TestNativeSearch(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			fx := newFixture(t, f)
			text := "Radar tensors keep Doppler information. Point clouds are sparse."
			fx.llm.Enqueue(llmtest.Web(text,
				llmtest.Citation{URL: "https://arxiv.org/abs/2312.04861v2", Title: "Radar review", Start: 0, End: 39, Quote: "Doppler"},
				llmtest.Citation{URL: "https://example.org/point-clouds", Title: "Point clouds", Start: 40, End: 64},
			))
			a := fx.agent(5, func(o *agent.Options) { o.Native, o.Searcher, o.Reader = true, nil, nil })
			rec, err := a.Run(t.Context(), task("2312.04861"))
			if err != nil || rec.Status != agent.StatusDone {
				t.Fatalf("Run = %+v, %v", rec, err)
			}
			want := "Radar tensors keep Doppler information. [1](https://arxiv.org/abs/2312.04861v2) Point clouds are sparse. [2](https://example.org/point-clouds)"
			if rec.Response != want {
				t.Errorf("response\n got %q\nwant %q", rec.Response, want)
			}
			if rec.Search != "native" || len(rec.Citations) != 2 || rec.Usage.WebSearches == 0 {
				t.Errorf("record: search %q, %d citations, %d web searches", rec.Search, len(rec.Citations), rec.Usage.WebSearches)
			}
			c := fx.llm.Calls()[0]
			b := string(c.Body)
			var on bool
			switch f.proto {
			case llmtest.OpenAIChat:
				on = c.Protocol == llmtest.OpenAIResponses || strings.Contains(b, "web_search")
			case llmtest.Gemini:
				on = strings.Contains(b, "googleSearch")
			case llmtest.Anthropic:
				on = strings.Contains(b, "web_search")
			}
			if !on || len(declaredTools(t, c)) != 0 {
				t.Errorf("request does not use the provider's web search alone: %s", b)
			}
			// The budget is the provider's search cap where it has one.
			var capped bool
			switch f.proto {
			case llmtest.OpenAIChat:
				capped = strings.Contains(b, `"max_tool_calls":5`)
			case llmtest.Gemini:
				capped = true // grounding has no cap
			case llmtest.Anthropic:
				capped = strings.Contains(b, `"max_uses":5`)
			}
			if !capped {
				t.Errorf("the budget of 5 is not the provider's search cap: %s", b)
			}
		})
	}
}

// TestNativeSearchZeroBudget: native search with a budget of 0 is the
// no-search baseline of the budget ablation, not an uncapped search.
func TestNativeSearchZeroBudget(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Enqueue(llmtest.Text("A survey from memory."))
	a := fx.agent(0, func(o *agent.Options) { o.Native, o.Searcher, o.Reader = true, nil, nil })
	rec, err := a.Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusDone {
		t.Fatalf("Run = %+v, %v", rec, err)
	}
	c := fx.llm.Calls()[0]
	if rec.Search != agent.SearchNone || strings.Contains(string(c.Body), "web_search") {
		t.Errorf("search %q; request: %s", rec.Search, c.Body)
	}
}

func TestToolFailuresAreToolResults(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.search.Enqueue(searchtest.Fail(searchtest.ServerError))
	fx.llm.Enqueue(
		llmtest.Tools(search1("c1", "radar")),
		llmtest.Tools(read1("c2", fx.pages.URL+"/missing"), llmtest.ToolCall{ID: "c3", Name: "browse", Arguments: `{"url":"x"}`}),
		llmtest.Tools(llmtest.ToolCall{ID: "c4", Name: "search", Arguments: `{"q":"wrong field"}`}, read1("c5", "file:///etc/passwd")),
		llmtest.Text("Survey without sources."),
	)
	rec, err := fx.agent(10).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusDone {
		t.Fatalf("Run = %+v, %v", rec, err)
	}
	want := []string{"system", "user", "assistant:search", "tool:search:error", "assistant:read+browse", "tool:read:error", "tool:browse:unknown_tool", "assistant:search+read", "tool:search:bad_arguments", "tool:read:error", "assistant"}
	if diff := cmp.Diff(want, roles(rec)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if rec.ToolCalls != 5 {
		t.Errorf("tool calls = %d, want 5: failed calls count too", rec.ToolCalls)
	}
	if c := rec.Transcript[3].Content; !strings.HasPrefix(c, "Error: the search failed") {
		t.Errorf("search failure shown as %q", c)
	}
	if c := rec.Transcript[5].Content; !strings.Contains(c, "404") {
		t.Errorf("404 shown as %q", c)
	}
}

func TestFatalSearchErrorStops(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.search.RequireKey("the-right-key")
	fx.llm.Enqueue(llmtest.Tools(search1("c1", "radar")))
	rec, err := fx.agent(5).Run(t.Context(), task("2312.04861"))
	var fe *agent.FatalError
	if !errors.As(err, &fe) || !errors.Is(err, search.ErrAuth) {
		t.Fatalf("Run error = %v, want a fatal search auth error", err)
	}
	if rec == nil || rec.Status != agent.StatusFailed || !strings.Contains(rec.Error, "serpapi") {
		t.Errorf("record = %+v", rec)
	}
}

func TestEmptyAnswerFails(t *testing.T) {
	fx := newFixture(t, flavours[2])
	fx.llm.Enqueue(llmtest.Reply{Text: "", Finish: "length"})
	rec, err := fx.agent(0).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusFailed || rec.Response != "" || !strings.Contains(rec.Error, "empty") {
		t.Errorf("Run = %+v, %v", rec, err)
	}
}

func TestReadIsCutToTheBudget(t *testing.T) {
	fx := newFixture(t, flavours[0])
	fx.llm.Enqueue(llmtest.Tools(read1("c1", fx.pages.URL+"/paper/long2")), llmtest.Text("Survey."))
	rec, err := fx.agent(5, func(o *agent.Options) { o.ReadChars = 500 }).Run(t.Context(), task("2312.04861"))
	if err != nil || rec.Status != agent.StatusDone {
		t.Fatalf("Run = %+v, %v", rec, err)
	}
	tt := rec.Transcript[3]
	if !tt.Truncated || tt.PageChars < 10000 || !strings.Contains(tt.Content, "[Cut: the first") {
		t.Errorf("read turn: truncated %v, page chars %d, content end %q", tt.Truncated, tt.PageChars, tt.Content[max(0, len(tt.Content)-80):])
	}
	if len(tt.Content) > 800 {
		t.Errorf("the model was shown %d bytes, budget 500 characters", len(tt.Content))
	}
}

func TestNewChecksOptions(t *testing.T) {
	fx := newFixture(t, flavours[0])
	for _, o := range []agent.Options{
		{},
		{Model: fx.client, MaxToolCalls: 5},
		{Model: fx.client, MaxToolCalls: -1},
	} {
		if _, err := agent.New(o); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("New(%+v) = %v, want ErrInvalid", o, err)
		}
	}
}
