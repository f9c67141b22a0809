package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// geminiModel speaks the Gemini API's generateContent through go-genai,
// with the SDK's retries and automatic continuation off (one request per
// attempt, so every billed request is counted).
type geminiModel struct {
	ep     Endpoint
	client *genai.Client
}

// geminiCallPrefix marks tool-call ids we minted because the API gave none;
// they are not sent back.
const geminiCallPrefix = "gemini-call-"

func newGeminiModel(ctx context.Context, ep Endpoint) (*geminiModel, error) {
	timeout := ep.timeout()
	one := int32(1)
	c, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     ep.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: ep.httpClient(),
		HTTPOptions: genai.HTTPOptions{
			BaseURL:      ep.baseURL(),
			Timeout:      &timeout,
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &one},
		},
	})
	if err != nil {
		// The SDK's configuration errors print the whole config, key included.
		return nil, &Error{Provider: Gemini, Model: ep.Model, Kind: ErrBadRequest, msg: "client: " + scrub(err.Error(), ep.APIKey)}
	}
	return &geminiModel{ep: ep, client: c}, nil
}

func (m *geminiModel) Generate(ctx context.Context, req Request) (Response, error) {
	cfg := &genai.GenerateContentConfig{AutomaticContinuation: new(false)}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	if req.Seed != nil {
		s := int32(*req.Seed)
		cfg.Seed = &s
	}
	if len(req.Tools) > 0 {
		var decls []*genai.FunctionDeclaration
		for _, t := range req.Tools {
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schemaMap(t.Parameters)})
		}
		cfg.Tools = append(cfg.Tools, &genai.Tool{FunctionDeclarations: decls})
	}
	if req.WebSearch {
		cfg.Tools = append(cfg.Tools, &genai.Tool{GoogleSearch: &genai.GoogleSearch{}})
	}
	// Gemini 2.x rejects a response schema together with Google Search; the
	// answer is then validated from text by the Client.
	if req.Schema != nil && !m.ep.NoStructuredOutput && !req.WebSearch {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = schemaMap(req.Schema.JSON)
	}

	tctx, tr := withTrace(ctx)
	r, err := m.generate(tctx, geminiContents(req.Messages), cfg)
	if err != nil {
		return Response{}, classify(ctx, Gemini, m.ep.Model, err, tr, m.ep.APIKey)
	}
	return m.response(r)
}

// generate makes the SDK's call. The SDK asserts types while it
// post-processes an answer and panics on some malformed ones (a null
// candidate: `{"candidates":[null]}`); such an answer is an error of this
// call, classified as any unreadable answer (transient), not a crash of
// the run.
func (m *geminiModel) generate(ctx context.Context, contents []*genai.Content, cfg *genai.GenerateContentConfig) (r *genai.GenerateContentResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("malformed answer: %v", p)
		}
	}()
	return m.client.Models.GenerateContent(ctx, m.ep.Model, contents, cfg)
}

func (m *geminiModel) response(r *genai.GenerateContentResponse) (Response, error) {
	out := Response{Model: r.ModelVersion, FinishReason: FinishStop}
	if u := r.UsageMetadata; u != nil {
		out.Usage = Usage{
			InputTokens:     int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
			OutputTokens:    int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			CachedTokens:    int64(u.CachedContentTokenCount),
			ReasoningTokens: int64(u.ThoughtsTokenCount),
		}
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		if fb := r.PromptFeedback; fb != nil && fb.BlockReason != "" {
			return Response{}, &Error{Provider: Gemini, Model: m.ep.Model, Kind: ErrBadRequest, Status: 200, Code: string(fb.BlockReason), msg: "prompt blocked: " + fb.BlockReasonMessage}
		}
		return Response{}, &Error{Provider: Gemini, Model: m.ep.Model, Kind: ErrTransient, Status: 200, msg: "answer has no candidates"}
	}
	c := r.Candidates[0]
	var text strings.Builder
	var partStart []int
	if c.Content != nil {
		for i, p := range c.Content.Parts {
			partStart = append(partStart, text.Len())
			if p == nil {
				continue
			}
			if p.Text != "" && !p.Thought {
				text.WriteString(p.Text)
			}
			if fc := p.FunctionCall; fc != nil {
				id := fc.ID
				if id == "" {
					id = fmt.Sprintf("%s%d", geminiCallPrefix, i)
				}
				args, _ := json.Marshal(fc.Args)
				if fc.Args == nil {
					args = []byte("{}")
				}
				out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: fc.Name, Arguments: args, Signature: p.ThoughtSignature})
			}
		}
	}
	out.Text = text.String()
	switch c.FinishReason {
	case genai.FinishReasonStop, "":
	case genai.FinishReasonMaxTokens:
		out.FinishReason = FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		out.FinishReason = FinishFiltered
	default:
		out.FinishReason = strings.ToLower(string(c.FinishReason))
	}
	if len(out.ToolCalls) > 0 && out.FinishReason == FinishStop {
		out.FinishReason = FinishToolUse
	}
	if g := c.GroundingMetadata; g != nil {
		out.Searches = append(out.Searches, g.WebSearchQueries...)
		if len(g.WebSearchQueries) > 0 {
			out.Usage.WebSearches = 1 // Gemini 2.x bills grounding per prompt
		}
		for _, ch := range g.GroundingChunks {
			if ch != nil && ch.Web != nil {
				out.Sources = append(out.Sources, WebSource{URL: ch.Web.URI, Title: ch.Web.Title})
			}
		}
		for _, s := range g.GroundingSupports {
			if s == nil || s.Segment == nil {
				continue
			}
			base := 0
			if pi := int(s.Segment.PartIndex); pi >= 0 && pi < len(partStart) {
				base = partStart[pi]
			}
			start, end := clampSpan(out.Text, base+int(s.Segment.StartIndex), base+int(s.Segment.EndIndex))
			for _, idx := range s.GroundingChunkIndices {
				if int(idx) < 0 || int(idx) >= len(g.GroundingChunks) || g.GroundingChunks[idx] == nil || g.GroundingChunks[idx].Web == nil {
					continue
				}
				w := g.GroundingChunks[idx].Web
				out.Citations = append(out.Citations, WebCitation{URL: w.URI, Title: w.Title, Start: start, End: end, Text: s.Segment.Text})
			}
		}
	}
	return out, nil
}

// geminiContents converts the conversation: assistant turns become "model"
// contents with their function calls, consecutive tool turns become one
// "user" content of function responses.
func geminiContents(msgs []Message) []*genai.Content {
	var out []*genai.Content
	for _, msg := range msgs {
		switch msg.Role {
		case RoleAssistant:
			c := &genai.Content{Role: genai.RoleModel}
			if msg.Content != "" {
				c.Parts = append(c.Parts, &genai.Part{Text: msg.Content})
			}
			for _, tc := range msg.ToolCalls {
				args := map[string]any{}
				_ = json.Unmarshal(tc.Arguments, &args)
				fc := &genai.FunctionCall{Name: tc.Name, Args: args}
				if !strings.HasPrefix(tc.ID, geminiCallPrefix) {
					fc.ID = tc.ID
				}
				c.Parts = append(c.Parts, &genai.Part{FunctionCall: fc, ThoughtSignature: tc.Signature})
			}
			out = append(out, c)
		case RoleTool:
			fr := &genai.FunctionResponse{Name: msg.Name, Response: toolResponse(msg.Content)}
			if !strings.HasPrefix(msg.ToolCallID, geminiCallPrefix) {
				fr.ID = msg.ToolCallID
			}
			part := &genai.Part{FunctionResponse: fr}
			if n := len(out); n > 0 && out[n-1].Role == genai.RoleUser && len(out[n-1].Parts) > 0 && out[n-1].Parts[0].FunctionResponse != nil {
				out[n-1].Parts = append(out[n-1].Parts, part)
				continue
			}
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{part}})
		default:
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: msg.Content}}})
		}
	}
	return out
}

// toolResponse passes a JSON-object result as is and wraps anything else
// as {"output": text}, the shape Gemini documents.
func toolResponse(content string) map[string]any {
	m := map[string]any{}
	if strings.HasPrefix(strings.TrimSpace(content), "{") && json.Unmarshal([]byte(content), &m) == nil {
		return m
	}
	return map[string]any{"output": content}
}

// clampSpan keeps [start, end) inside s.
func clampSpan(s string, start, end int) (int, int) {
	start = max(0, min(start, len(s)))
	end = max(start, min(end, len(s)))
	return start, end
}
