// Package mcpserver exposes the live provenance service (package live) as
// Model Context Protocol tools, with the official Go SDK: an agent opens a
// session, records the sources it reads and the reasoning steps it takes,
// and submits each claim before writing it; add_claim answers with the
// judge's verdicts and the gate's decision. New returns the server; run it
// over stdio with StdioTransport (which answers malformed lines instead of
// ending the session) or serve it over streamable HTTP with Handler, which
// requires a bearer token.
//
// Tool inputs are the live package's input types with a session id; the
// SDK derives their JSON Schemas from the Go structs (field descriptions
// from the jsonschema tags) and validates arguments against them before a
// handler runs. Outputs are structured content with derived output schemas,
// except the documents of export_prov and get_graph, which are passed
// through as they are.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Name is the server's implementation name.
const Name = "claimtrace"

// instructions tell a connected agent how to use the tools.
const instructions = `claimtrace records the provenance of the report you are writing and checks each claim before you write it.

1. open_session once per report (give the research question); keep the session id.
2. add_source for every source you rely on, with the excerpt you read (verbatim). A source without an excerpt is fetched only if the server allows it; otherwise it stays unresolved and claims citing it are gated.
3. add_reasoning for an inference that combines sources (optional), with its inputs.
4. add_claim for each factual sentence BEFORE you write it, with supports = the ids of the sources (and reasoning steps) it rests on. Every cited source is judged against the statement. If the answer says gated: true, do not write the sentence as it stands: follow the reasons (revise the statement with revise: true, cite a source that says it, or withdraw_claim).
5. When sources disagree (add_source reports conflicts), surface it: add_edge with rel contradicts, or a claim citing both that states the disagreement.
6. get_metrics shows PCov, PSnd, CTran and the claims still gated; why explains one claim; export_prov writes W3C PROV-JSON.`

// New returns an MCP server whose tools call svc. version is reported to
// clients as the implementation version.
func New(svc *live.Service, version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "claimtrace live provenance", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	t := tools{svc: svc}
	mcp.AddTool(srv, &mcp.Tool{Name: "open_session", Description: "Open a provenance session for one report, or resume one by id. Returns the session id to pass to every other tool."}, t.openSession)
	mcp.AddTool(srv, &mcp.Tool{Name: "add_source", Description: "Record a source you read: url, doi or title, and the excerpt you rely on, verbatim. Reports contradictions with earlier sources."}, t.addSource)
	mcp.AddTool(srv, &mcp.Tool{Name: "add_reasoning", Description: "Record a reasoning step (deduction, induction or synthesis) with the sources and earlier steps it uses as inputs."}, t.addReasoning)
	mcp.AddTool(srv, &mcp.Tool{Name: "add_claim", Description: "Submit a claim before writing it, with the ids of the sources and steps it rests on. Each cited source is judged against the statement; returns the verdicts (label, strength, verbatim evidence) and the gate decision: gated claims must be revised (revise: true), backed by another source, or withdrawn."}, t.addClaim)
	mcp.AddTool(srv, &mcp.Tool{Name: "add_edge", Description: "Record an edge: supports (a source → claim edge is judged), contradicts (surfaces a disagreement), refines or prerequisite."}, t.addEdge)
	mcp.AddTool(srv, &mcp.Tool{Name: "withdraw_claim", Description: "Remove a claim you dropped from the report, with the edges into it.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}}, t.withdraw)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_metrics", Description: "AAR metrics of the session as it stands (PCov, PSnd, CTran, AEff proxy), the claims still gated with their reasons, and the conflicts between sources.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.metrics)
	mcp.AddTool(srv, &mcp.Tool{Name: "why", Description: "Explain one claim: the sources and reasoning steps it rests on, the verdicts with evidence, and the gate decision.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.why)
	mcp.AddTool(srv, &mcp.Tool{Name: "export_prov", Description: "Export the session's provenance graph as W3C PROV-JSON (or PROV-JSONLD).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.exportPROV)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_graph", Description: "The session's provenance graph in claimtrace's native aar-graph/1 JSON.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.graph)
	mcp.AddTool(srv, &mcp.Tool{Name: "close_session", Description: "Close the session when the report is final; it stays readable."}, t.close)
	return srv
}

// Handler serves srv over the streamable HTTP transport, every request
// needing "Authorization: Bearer <token>". The token is required: HTTP
// exposes the tools to anything that can reach the address.
func Handler(srv *mcp.Server, token string) (http.Handler, error) {
	if token == "" {
		return nil, fmt.Errorf("mcp over HTTP needs a bearer token: set %s: %w", live.TokenEnv, claimtrace.ErrInvalid)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: live.MaxBody})
	return live.RequireBearer(token, liftWriteDeadline(h)), nil
}

// CallTimeout bounds writing the answer to one authenticated MCP request
// (a tool call may wait on an LLM judge), in place of the server's write
// timeout.
const CallTimeout = 10 * time.Minute

// liftWriteDeadline gives an authenticated request more time than the
// server's write timeout: CallTimeout for a call, none for the event
// stream a client holds open with GET to hear from the server.
func liftWriteDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var deadline time.Time
		if r.Method != http.MethodGet {
			deadline = time.Now().Add(CallTimeout)
		}
		http.NewResponseController(w).SetWriteDeadline(deadline) // a writer without deadlines keeps none
		h.ServeHTTP(w, r)
	})
}

// tools holds the handlers. Their errors become tool errors (IsError, with
// the message as text) that the model can read and act on.
type tools struct {
	svc *live.Service
}

// SessionArg names the session a tool acts on.
type SessionArg struct {
	Session string `json:"session" jsonschema:"the session id returned by open_session"`
}

// SourceArgs are add_source's arguments.
type SourceArgs struct {
	SessionArg
	live.SourceInput
}

// ReasoningArgs are add_reasoning's arguments.
type ReasoningArgs struct {
	SessionArg
	live.ReasoningInput
}

// ClaimArgs are add_claim's arguments.
type ClaimArgs struct {
	SessionArg
	live.ClaimInput
}

// EdgeArgs are add_edge's arguments.
type EdgeArgs struct {
	SessionArg
	live.EdgeInput
}

// ClaimRef names one claim of a session.
type ClaimRef struct {
	SessionArg
	Claim string `json:"claim" jsonschema:"the claim id"`
}

// MetricsArgs are get_metrics' arguments.
type MetricsArgs struct {
	SessionArg
	PerClaim bool `json:"per_claim,omitempty" jsonschema:"also list every claim's figures"`
}

// ExportArgs are export_prov's arguments.
type ExportArgs struct {
	SessionArg
	Format string `json:"format,omitempty" jsonschema:"prov-json (default) or prov-jsonld"`
}

func (t tools) openSession(ctx context.Context, _ *mcp.CallToolRequest, in live.OpenInput) (*mcp.CallToolResult, *live.SessionInfo, error) {
	info, err := t.svc.Open(ctx, in)
	return nil, info, err
}

func (t tools) addSource(ctx context.Context, _ *mcp.CallToolRequest, in SourceArgs) (*mcp.CallToolResult, *live.SourceResult, error) {
	res, err := t.svc.AddSource(ctx, in.Session, in.SourceInput)
	return nil, res, err
}

func (t tools) addReasoning(ctx context.Context, _ *mcp.CallToolRequest, in ReasoningArgs) (*mcp.CallToolResult, *live.ReasoningResult, error) {
	res, err := t.svc.AddReasoning(ctx, in.Session, in.ReasoningInput)
	return nil, res, err
}

func (t tools) addClaim(ctx context.Context, _ *mcp.CallToolRequest, in ClaimArgs) (*mcp.CallToolResult, *live.ClaimResult, error) {
	res, err := t.svc.AddClaim(ctx, in.Session, in.ClaimInput)
	return nil, res, err
}

func (t tools) addEdge(ctx context.Context, _ *mcp.CallToolRequest, in EdgeArgs) (*mcp.CallToolResult, *live.EdgeResult, error) {
	res, err := t.svc.AddEdge(ctx, in.Session, in.EdgeInput)
	return nil, res, err
}

func (t tools) withdraw(ctx context.Context, _ *mcp.CallToolRequest, in ClaimRef) (*mcp.CallToolResult, *live.SessionInfo, error) {
	info, err := t.svc.Withdraw(ctx, in.Session, in.Claim)
	return nil, info, err
}

func (t tools) metrics(ctx context.Context, _ *mcp.CallToolRequest, in MetricsArgs) (*mcp.CallToolResult, *live.MetricsResult, error) {
	m, err := t.svc.Metrics(ctx, in.Session)
	if err != nil {
		return nil, nil, err
	}
	if !in.PerClaim {
		m.PerClaim = nil
	}
	return nil, m, nil
}

func (t tools) why(ctx context.Context, _ *mcp.CallToolRequest, in ClaimRef) (*mcp.CallToolResult, *live.Why, error) {
	w, err := t.svc.Why(ctx, in.Session, in.Claim)
	return nil, w, err
}

func (t tools) close(ctx context.Context, _ *mcp.CallToolRequest, in SessionArg) (*mcp.CallToolResult, *live.SessionInfo, error) {
	info, err := t.svc.Close(ctx, in.Session)
	return nil, info, err
}

// exportPROV returns the PROV document as structured content and as text.
func (t tools) exportPROV(ctx context.Context, _ *mcp.CallToolRequest, in ExportArgs) (*mcp.CallToolResult, any, error) {
	data, err := t.svc.PROV(ctx, in.Session, in.Format)
	if err != nil {
		return nil, nil, err
	}
	return document(data)
}

func (t tools) graph(ctx context.Context, _ *mcp.CallToolRequest, in SessionArg) (*mcp.CallToolResult, any, error) {
	g, err := t.svc.Graph(ctx, in.Session)
	if err != nil {
		return nil, nil, err
	}
	data, err := prov.Marshal(g)
	if err != nil {
		return nil, nil, err
	}
	return document(data)
}

// document passes a JSON document through unchanged: as the structured
// content and as its text.
func document(data []byte) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, json.RawMessage(data), nil
}
