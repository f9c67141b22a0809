package judge

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

const ferrySource = `The ferry between Rosslare and Cherbourg runs three times a week in winter. Crossings take about eighteen hours.
The operator added a second vessel in 2019, which doubled summer capacity.`

// minicheckServer answers like Bespoke-MiniCheck-7B on vLLM: "Yes" when
// the claim mentions the vessel or the crossing time, "No" otherwise,
// with logprobs when asked and withLogprobs is set.
func minicheckServer(t *testing.T, withLogprobs bool) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		claim := c.Prompt[strings.LastIndex(c.Prompt, "\nClaim: ")+len("\nClaim: "):]
		yes := strings.Contains(claim, "vessel") || strings.Contains(claim, "eighteen hours")
		r := llmtest.Text("No")
		top := []llmtest.Logprob{{Token: "No", Logprob: math.Log(0.8)}, {Token: "Yes", Logprob: math.Log(0.15)}, {Token: "yes", Logprob: math.Log(0.01)}}
		if yes {
			r = llmtest.Text("Yes")
			top = []llmtest.Logprob{{Token: "Yes", Logprob: math.Log(0.9)}, {Token: "No", Logprob: math.Log(0.05)}, {Token: " yes", Logprob: math.Log(0.03)}}
		}
		if withLogprobs {
			r.Logprobs = []llmtest.Logprob{{Token: top[0].Token, Logprob: top[0].Logprob, Top: top}}
		}
		return r
	})
	return srv
}

func TestMiniCheckLogprobs(t *testing.T) {
	srv := minicheckServer(t, true)
	j, err := NewMiniCheck(srv.Client(t, llm.OpenAI, "bespoke-minicheck", llm.Options{}), MiniCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claims := []string{
		"A second vessel joined the route in 2019.",
		"The ferry runs daily all year round.",
		"   ",
		"The crossing takes eighteen hours.",
	}
	vs, err := j.JudgeSource(t.Context(), ferrySource, claims)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label    claimtrace.Label
		strength float64
	}{{claimtrace.Supported, 0.93}, {claimtrace.Unsupported, 0.16}, {claimtrace.Unknown, 0}, {claimtrace.Supported, 0.93}}
	for i, w := range want {
		v := vs[i]
		if v.Label != w.label || math.Abs(v.Strength-w.strength) > 1e-9 || v.Judge != "minicheck:openai:bespoke-minicheck" {
			t.Errorf("claim %d: %s %.4f by %s, want %s %.2f", i, v.Label, v.Strength, v.Judge, w.label, w.strength)
		}
		if !strings.Contains(ferrySource, v.Evidence) {
			t.Errorf("claim %d: evidence %q is not in the source", i, v.Evidence)
		}
	}
	if !strings.Contains(vs[0].Reason, "logprobs") || vs[0].Evidence == "" || !strings.Contains(vs[0].Evidence, "vessel") {
		t.Errorf("supported verdict: reason %q, evidence %q", vs[0].Reason, vs[0].Evidence)
	}
	if vs[1].Evidence != "" {
		t.Errorf("unsupported verdict quotes %q", vs[1].Evidence)
	}

	calls := srv.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want one a claim with text (3)", len(calls))
	}
	sys, _ := NewMiniCheck(llmtestOffline(), MiniCheckOptions{})
	for k, c := range calls {
		b := c.Chat(t)
		if len(b.Messages) != 2 || b.Messages[0].Role != "system" || b.Messages[0].Content != sys.system {
			t.Fatalf("call %d: messages %+v: want MiniCheck's system prompt, then the user turn", k, b.Messages)
		}
		if !strings.HasPrefix(b.Messages[0].Content, "Determine whether the provided claim is consistent with the corresponding document.") ||
			!strings.HasSuffix(b.Messages[0].Content, `by responding with either "Yes" or "No".`) {
			t.Errorf("system prompt %q", b.Messages[0].Content)
		}
		user := b.Messages[1].Content
		if !strings.HasPrefix(user, "Document: "+ferrySource+"\nClaim: ") || strings.HasSuffix(user, "\n") {
			t.Errorf("call %d: user turn %q: want Document: … then Claim: …, no trailing newline", k, user)
		}
		if b.MaxTokens == nil || *b.MaxTokens != 1 || b.Temperature == nil || *b.Temperature != 0 || !b.Logprobs || b.TopLogprobs == nil || *b.TopLogprobs != 5 {
			t.Errorf("call %d: max_tokens %v, temperature %v, logprobs %v/%v: want 1, 0, true/5", k, b.MaxTokens, b.Temperature, b.Logprobs, b.TopLogprobs)
		}
	}
}

// llmtestOffline is a client that never calls, to build a judge for its
// prompts.
func llmtestOffline() *llm.Client { return llmtest.OfflineClient(llm.OpenAI, "bespoke-minicheck") }

// TestMiniCheckWithoutLogprobs: a server that ignores the request for
// logprobs (older Ollama) still gets verdicts, with strength 1 or 0, and
// an answer that is neither Yes nor No is an unknown verdict.
func TestMiniCheckWithoutLogprobs(t *testing.T) {
	srv := minicheckServer(t, false)
	j, err := NewMiniCheck(srv.Client(t, llm.OpenAI, "bespoke-minicheck", llm.Options{}), MiniCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := j.JudgeSource(t.Context(), ferrySource, []string{"The operator added a second vessel.", "Tickets are cheaper in winter."})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Label != claimtrace.Supported || vs[0].Strength != 1 || vs[1].Label != claimtrace.Unsupported || vs[1].Strength != 0 {
		t.Errorf("verdicts %s %.2f, %s %.2f: want supported 1, unsupported 0", vs[0].Label, vs[0].Strength, vs[1].Label, vs[1].Strength)
	}
	if !strings.Contains(vs[0].Reason, "no logprobs") {
		t.Errorf("reason %q: should say the server gave no logprobs", vs[0].Reason)
	}

	odd := llmtest.NewServer(t)
	odd.Enqueue(llmtest.Text("Nothing in the document says so."), llmtest.Text("Yes."))
	j2, _ := NewMiniCheck(odd.Client(t, llm.OpenAI, "bespoke-minicheck", llm.Options{}), MiniCheckOptions{})
	vs, err = j2.JudgeSource(t.Context(), ferrySource, []string{"The ferry is run by the state.", "Crossings take eighteen hours."})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Label != claimtrace.Unknown || !strings.Contains(vs[0].Reason, "neither Yes nor No") || vs[1].Label != claimtrace.Supported {
		t.Errorf("verdicts %+v: want unknown for a sentence answer, supported for \"Yes.\"", vs)
	}
}

// TestMiniCheckChunks: a long source is cut into chunks at sentence ends;
// each claim is checked against at most MaxChunks of them (those with its
// best passages), chunk by chunk so that calls about one chunk follow each
// other, and its probability is the largest over them.
func TestMiniCheckChunks(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		switch i {
		case 10:
			b.WriteString("The lighthouse keeper logged every storm in a bound ledger. ")
		case 45:
			b.WriteString("A second vessel was chartered for the summer season. ")
		default:
			b.WriteString("Harbour traffic was recorded by the port authority on weekdays and holidays alike. ")
		}
	}
	source := b.String()
	srv := llmtest.NewServer(t)
	var chunksSeen []string
	srv.Handle(func(ctx context.Context, c llmtest.Call) llmtest.Reply {
		doc := c.Prompt[len("Document: "):strings.LastIndex(c.Prompt, "\nClaim: ")]
		claim := c.Prompt[strings.LastIndex(c.Prompt, "\nClaim: ")+8:]
		chunksSeen = append(chunksSeen, doc)
		p := 0.1
		if strings.Contains(claim, "vessel") && strings.Contains(doc, "second vessel") {
			p = 0.97
		}
		return llmtest.Reply{Text: "Yes", Logprobs: []llmtest.Logprob{{Token: "Yes", Logprob: math.Log(p), Top: []llmtest.Logprob{{Token: "Yes", Logprob: math.Log(p)}}}}}
	})
	j, err := NewMiniCheck(srv.Client(t, llm.OpenAI, "bespoke-minicheck", llm.Options{}), MiniCheckOptions{ChunkTokens: 250, MaxChunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := j.JudgeSource(t.Context(), source, []string{"A second vessel was chartered.", "The keeper logged every storm."})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Label != claimtrace.Supported || math.Abs(vs[0].Strength-0.97) > 1e-9 || !strings.Contains(vs[0].Evidence, "second vessel") {
		t.Errorf("claim 1: %s %.3f %q: want supported 0.97 quoting the vessel sentence", vs[0].Label, vs[0].Strength, vs[0].Evidence)
	}
	if vs[1].Label != claimtrace.Unsupported || !strings.Contains(vs[1].Reason, "chunks") {
		t.Errorf("claim 2: %s %q", vs[1].Label, vs[1].Reason)
	}
	if n := len(srv.Calls()); n > 4 || n < 2 {
		t.Errorf("%d calls: want at most MaxChunks (2) a claim", n)
	}
	for k, doc := range chunksSeen {
		if len(doc) > 1000 {
			t.Errorf("call %d: chunk of %d bytes, over 4·250", k, len(doc))
		}
		if !strings.Contains(source, doc) {
			t.Errorf("call %d: chunk is not a verbatim part of the source", k)
		}
	}
	// Calls about one chunk are adjacent: a chunk never comes back after
	// another one was sent.
	done := map[string]bool{}
	for k := 1; k < len(chunksSeen); k++ {
		if chunksSeen[k] != chunksSeen[k-1] {
			done[chunksSeen[k-1]] = true
			if done[chunksSeen[k]] {
				t.Errorf("call %d returns to an earlier chunk", k)
			}
		}
	}
}

func TestMiniCheckErrors(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Fail(llmtest.BadRequest))
	j, err := NewMiniCheck(srv.Client(t, llm.OpenAI, "bespoke-minicheck", llm.Options{}), MiniCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.JudgeSource(t.Context(), ferrySource, []string{"The ferry runs weekly."}); err == nil || !strings.Contains(err.Error(), "minicheck judge openai:bespoke-minicheck: claim 1") {
		t.Errorf("err = %v, want the model's error naming the endpoint and the claim", err)
	}
	vs, err := j.JudgeSource(t.Context(), " \n ", []string{"The ferry runs weekly."})
	if err != nil || vs[0].Label != claimtrace.Unknown || vs[0].Reason != "source has no text" {
		t.Errorf("empty source: %+v, %v", vs, err)
	}
	if _, err := NewMiniCheck(nil, MiniCheckOptions{}); err == nil {
		t.Error("NewMiniCheck(nil): no error")
	}
}

func TestSupportProbability(t *testing.T) {
	lp := func(tok string, p float64, top ...llm.TokenLogprob) llm.Response {
		return llm.Response{Text: tok, Logprobs: []llm.TokenLogprob{{Token: tok, Logprob: math.Log(p), Top: top}}}
	}
	alt := func(tok string, p float64) llm.TokenLogprob {
		return llm.TokenLogprob{Token: tok, Logprob: math.Log(p)}
	}
	for _, c := range []struct {
		name   string
		r      llm.Response
		p      float64
		fromLP bool
		ok     bool
	}{
		{"yes mass over spellings", lp("Yes", 0.6, alt("Yes", 0.6), alt("yes", 0.1), alt(" YES", 0.05), alt("No", 0.2)), 0.75, true, true},
		{"no on top", lp("No", 0.7, alt("No", 0.7), alt("Yes", 0.25)), 0.25, true, true},
		{"no alternatives, yes", lp("Yes", 0.8), 0.8, true, true},
		{"no alternatives, no", lp("No", 0.9), 0.1, true, true},
		{"text only", llm.Response{Text: " yes\n"}, 1, false, true},
		{"text no", llm.Response{Text: "No."}, 0, false, true},
		{"not a word no", llm.Response{Text: "Not sure"}, 0, false, false},
		{"empty", llm.Response{}, 0, false, false},
	} {
		p, fromLP, ok := supportProbability(c.r)
		if math.Abs(p-c.p) > 1e-9 || fromLP != c.fromLP || ok != c.ok {
			t.Errorf("%s: %v %v %v, want %v %v %v", c.name, p, fromLP, ok, c.p, c.fromLP, c.ok)
		}
	}
}
