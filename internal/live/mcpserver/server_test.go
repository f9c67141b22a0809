package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

const (
	excerpt     = "Across three long-form question answering benchmarks, retrieval-augmented generation improved answer accuracy by 14-18% over the same model without retrieval."
	goodClaim   = "Retrieval-augmented generation improved answer accuracy by 14-18% over models without retrieval on long-form question answering benchmarks."
	gatedClaim  = "RAG is the preferred architecture for all factual tasks."
	testVersion = "test"
)

func service(t *testing.T) *live.Service {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.SQLiteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := live.New(live.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// connect runs the server on one end of an in-memory transport and returns
// a client session on the other.
func connect(t *testing.T, svc *live.Service) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := New(svc, testVersion).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured content into out. It
// returns the result for error checks.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, data, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestTools(t *testing.T) {
	cs := connect(t, service(t))
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "add_claim for each factual sentence BEFORE you write it") {
		t.Errorf("instructions: %q", got)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		data, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("decode: %v", err)
		}
		schemas[tool.Name] = s
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"add_claim", "add_edge", "add_reasoning", "add_source", "close_session", "export_prov", "get_graph", "get_metrics", "open_session", "why", "withdraw_claim"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// Schemas come from the Go input structs: required fields, descriptions.
	claim := schemas["add_claim"]
	if diff := cmp.Diff([]any{"session", "statement"}, claim["required"]); diff != "" {
		t.Errorf("add_claim required (-want +got):\n%s", diff)
	}
	props := claim["properties"].(map[string]any)
	for _, p := range []string{"session", "id", "statement", "supports", "start", "end", "section", "revise"} {
		if _, ok := props[p]; !ok {
			t.Errorf("add_claim schema lacks %q", p)
		}
	}
	if d := props["supports"].(map[string]any)["description"]; d == nil || !strings.Contains(d.(string), "judged") {
		t.Errorf("supports description: %v", d)
	}
	if claim["additionalProperties"] != false {
		t.Errorf("add_claim accepts unknown arguments: %v", claim["additionalProperties"])
	}
}

// TestAgentSession drives a session the way an agent would: a passing claim,
// a gated one, its revision, the metrics, why, the PROV export, and the
// errors a model gets back for mistakes.
func TestAgentSession(t *testing.T) {
	cs := connect(t, service(t))
	var info live.SessionInfo
	callTool(t, cs, "open_session", map[string]any{"query": "Does RAG improve factual accuracy in long-form QA?", "agent": "test-agent"}, &info)
	if info.ID == "" || info.Resumed {
		t.Fatalf("open_session: %+v", info)
	}
	sid := info.ID

	var src live.SourceResult
	callTool(t, cs, "add_source", map[string]any{"session": sid, "url": "https://doi.org/10.5555/rag.2024.014", "title": "Retrieval helps long-form answers", "excerpt": excerpt}, &src)
	if src.Source.ID != "s1" || !src.Source.Resolved || src.Source.Content != live.ContentExcerpt {
		t.Errorf("add_source: %+v", src)
	}
	var unresolved live.SourceResult
	callTool(t, cs, "add_source", map[string]any{"session": sid, "url": "https://example.org/rag-wins"}, &unresolved)
	if unresolved.Source.Resolved || !strings.Contains(unresolved.Note, "gated") {
		t.Errorf("URL-only source with fetching off: %+v", unresolved)
	}

	var pass live.ClaimResult
	callTool(t, cs, "add_claim", map[string]any{"session": sid, "statement": goodClaim, "supports": []string{"s1"}}, &pass)
	if pass.Gated || len(pass.Verdicts) != 1 || !pass.Verdicts[0].Sound || !strings.Contains(excerpt, pass.Verdicts[0].Evidence) || pass.Verdicts[0].Evidence == "" {
		t.Errorf("passing claim: %+v", pass)
	}
	var gated live.ClaimResult
	callTool(t, cs, "add_claim", map[string]any{"session": sid, "id": "c2", "statement": gatedClaim, "supports": []string{"s1"}}, &gated)
	if !gated.Gated || len(gated.Reasons) != 1 || gated.Reasons[0].Code != live.ReasonUnsupported {
		t.Errorf("gated claim: %+v", gated)
	}
	var onUnresolved live.ClaimResult
	callTool(t, cs, "add_claim", map[string]any{"session": sid, "statement": goodClaim, "supports": []string{"s2"}}, &onUnresolved)
	if !onUnresolved.Gated || onUnresolved.Reasons[0].Code != live.ReasonUnresolvedSource {
		t.Errorf("claim on an unresolved source: %+v", onUnresolved.Gate)
	}

	var m live.MetricsResult
	callTool(t, cs, "get_metrics", map[string]any{"session": sid}, &m)
	if m.Claims != 3 || *m.PCov != 2.0/3 || *m.PSnd != 1.0/3 || len(m.Gated) != 2 || m.PerClaim != nil {
		t.Errorf("metrics: claims %d pcov %v psnd %v gated %v per_claim %v", m.Claims, *m.PCov, *m.PSnd, m.Gated, m.PerClaim)
	}
	var revised live.ClaimResult
	callTool(t, cs, "add_claim", map[string]any{"session": sid, "id": "c2", "statement": goodClaim, "supports": []string{"s1"}, "revise": true}, &revised)
	if revised.Gated || !revised.Revised {
		t.Errorf("revised claim: %+v", revised)
	}
	var after live.SessionInfo
	callTool(t, cs, "withdraw_claim", map[string]any{"session": sid, "claim": "c3"}, &after)
	if after.Claims != 2 || after.Gated != 0 {
		t.Errorf("after withdraw: %+v", after)
	}
	callTool(t, cs, "get_metrics", map[string]any{"session": sid, "per_claim": true}, &m)
	if *m.PCov != 1 || *m.PSnd != 1 || len(m.PerClaim) != 2 {
		t.Errorf("final metrics: pcov %v psnd %v per_claim %d", *m.PCov, *m.PSnd, len(m.PerClaim))
	}

	var why live.Why
	callTool(t, cs, "why", map[string]any{"session": sid, "claim": "c1"}, &why)
	if why.Claim.Statement != goodClaim || len(why.Sources) != 1 || why.Sources[0].Excerpt != excerpt || why.Gated {
		t.Errorf("why: %+v", why)
	}

	res := callTool(t, cs, "export_prov", map[string]any{"session": sid}, nil)
	if res.IsError {
		t.Fatalf("export_prov: %s", text(res))
	}
	g, err := provjson.Unmarshal([]byte(text(res)))
	if err != nil || len(g.Claims) != 2 {
		t.Errorf("exported PROV-JSON: %v, %d claims", err, len(g.Claims))
	}
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["prefix"] == nil {
		t.Errorf("export_prov structured content: %T", res.StructuredContent)
	}
	res = callTool(t, cs, "get_graph", map[string]any{"session": sid}, nil)
	if res.IsError || !strings.Contains(text(res), `"format": "aar-graph/1"`) {
		t.Errorf("get_graph: %s", text(res))
	}

	// Mistakes come back as tool errors the model can read.
	for _, tc := range []struct {
		tool string
		args map[string]any
		msg  string
	}{
		{"add_claim", map[string]any{"session": "nope", "statement": goodClaim}, `session "nope": not found`},
		{"add_claim", map[string]any{"session": sid, "statement": goodClaim, "supports": []string{"s9"}}, `no node "s9" [rule edge-endpoint]`},
		{"add_claim", map[string]any{"session": sid, "id": "c1", "statement": goodClaim}, "set revise to replace it"},
		{"add_claim", map[string]any{"session": sid}, "statement"},
		{"add_claim", map[string]any{"session": sid, "statement": goodClaim, "cites": []string{"s1"}}, "cites"},
		{"add_edge", map[string]any{"session": sid, "from": "s1", "to": "c1", "rel": "cites"}, "want supports, contradicts, refines or prerequisite"},
		{"add_reasoning", map[string]any{"session": sid, "inference": "x", "type": "abduction"}, "rule reasoning-type"},
		{"why", map[string]any{"session": sid, "claim": "s1"}, "no claim"},
		{"export_prov", map[string]any{"session": sid, "format": "turtle"}, "turtle"},
	} {
		res := callTool(t, cs, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(text(res), tc.msg) {
			t.Errorf("%s %v: error %v, text %q; want one mentioning %q", tc.tool, tc.args, res.IsError, text(res), tc.msg)
		}
	}

	callTool(t, cs, "close_session", map[string]any{"session": sid}, &after)
	if !after.Closed {
		t.Errorf("close_session: %+v", after)
	}
	res = callTool(t, cs, "add_source", map[string]any{"session": sid, "title": "late"}, nil)
	if !res.IsError || !strings.Contains(text(res), "session closed") {
		t.Errorf("write after close: %s", text(res))
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestStreamableHTTP(t *testing.T) {
	if _, err := Handler(New(service(t), testVersion), ""); err == nil || !strings.Contains(err.Error(), live.TokenEnv) {
		t.Errorf("HTTP without a token: %v", err)
	}
	h, err := Handler(New(service(t), testVersion), "mcp-token")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)

	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"wrong", http.DefaultTransport}}, MaxRetries: -1}, nil); err == nil {
		t.Error("connected with a wrong token")
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("request without a token: %d", resp.StatusCode)
	}

	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"mcp-token", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var info live.SessionInfo
	callTool(t, cs, "open_session", map[string]any{"id": "over-http", "query": "q"}, &info)
	callTool(t, cs, "add_source", map[string]any{"session": "over-http", "title": "Study", "excerpt": excerpt}, nil)
	var res live.ClaimResult
	callTool(t, cs, "add_claim", map[string]any{"session": "over-http", "statement": gatedClaim, "supports": []string{"s1"}}, &res)
	if info.ID != "over-http" || !res.Gated {
		t.Errorf("over HTTP: session %+v, claim gated %v", info, res.Gated)
	}
}
