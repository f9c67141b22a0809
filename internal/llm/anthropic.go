package llm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// anthropicModel speaks the Messages API through anthropic-sdk-go. The
// service is built from explicit options only: the SDK's environment,
// profile and federation lookups are never consulted.
type anthropicModel struct {
	ep       Endpoint
	messages anthropic.MessageService
}

// anthropicMaxSearches caps web searches per request (each is billed)
// unless Request.MaxSearches says otherwise.
const anthropicMaxSearches = 5

func newAnthropicModel(ep Endpoint) *anthropicModel {
	return &anthropicModel{ep: ep, messages: anthropic.NewMessageService(
		option.WithBaseURL(ep.baseURL()),
		option.WithAPIKey(ep.APIKey),
		option.WithHTTPClient(ep.httpClient()),
		option.WithMaxRetries(0),
		// An explicit timeout also lifts the SDK's refusal of long
		// non-streaming requests.
		option.WithRequestTimeout(ep.timeout()),
	)}
}

func (m *anthropicModel) Generate(ctx context.Context, req Request) (Response, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(m.ep.Model),
		MaxTokens: int64(maxTokens),
		Messages:  anthropicMessages(req.Messages),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	for _, t := range req.Tools {
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: anthropicInputSchema(t.Parameters)}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	if req.WebSearch {
		uses := anthropicMaxSearches
		if req.MaxSearches > 0 {
			uses = req.MaxSearches
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{MaxUses: param.NewOpt(int64(uses))}})
	}
	if req.Schema != nil && !m.ep.NoStructuredOutput {
		params.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: schemaMap(req.Schema.JSON)}
	}

	tctx, tr := withTrace(ctx)
	msg, err := m.messages.New(tctx, params)
	if err != nil {
		return Response{}, classify(ctx, Anthropic, m.ep.Model, err, tr, m.ep.APIKey)
	}
	u := msg.Usage
	out := Response{
		Model: string(msg.Model),
		Usage: Usage{
			InputTokens:  u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
			OutputTokens: u.OutputTokens,
			CachedTokens: u.CacheReadInputTokens,
			WebSearches:  u.ServerToolUse.WebSearchRequests,
		},
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			start := text.Len()
			text.WriteString(b.Text)
			for _, c := range b.Citations {
				if c.URL == "" {
					continue
				}
				out.Citations = append(out.Citations, WebCitation{URL: c.URL, Title: c.Title, Start: start, End: text.Len(), Text: c.CitedText})
			}
		case "tool_use":
			args := json.RawMessage(b.Input)
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		case "server_tool_use":
			var in struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(b.Input, &in) == nil && in.Query != "" {
				out.Searches = append(out.Searches, in.Query)
			}
		case "web_search_tool_result":
			for _, r := range b.Content.OfWebSearchResultBlockArray {
				out.Sources = append(out.Sources, WebSource{URL: r.URL, Title: r.Title})
			}
		}
	}
	out.Text = text.String()
	switch msg.StopReason {
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		out.FinishReason = FinishLength
	case anthropic.StopReasonToolUse:
		out.FinishReason = FinishToolUse
	case anthropic.StopReasonRefusal:
		out.FinishReason = FinishFiltered
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence, "":
		out.FinishReason = FinishStop
	default:
		out.FinishReason = string(msg.StopReason)
	}
	return out, nil
}

// anthropicMessages converts the conversation. Tool results must follow
// the assistant turn as one user message of tool_result blocks, so
// consecutive tool turns are merged.
func anthropicMessages(msgs []Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	for _, msg := range msgs {
		switch msg.Role {
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if msg.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
			}
			for _, tc := range msg.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, json.RawMessage(argumentsString(tc.Arguments)), tc.Name))
			}
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		case RoleTool:
			block := anthropic.NewToolResultBlock(msg.ToolCallID, msg.Content, false)
			if n := len(out); n > 0 && out[n-1].Role == anthropic.MessageParamRoleUser && len(out[n-1].Content) > 0 && out[n-1].Content[0].OfToolResult != nil {
				out[n-1].Content = append(out[n-1].Content, block)
				continue
			}
			out = append(out, anthropic.NewUserMessage(block))
		default:
			out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(msg.Content)))
		}
	}
	return out
}

// anthropicInputSchema splits a JSON Schema object into the SDK's
// properties, required and extra fields.
func anthropicInputSchema(raw json.RawMessage) anthropic.ToolInputSchemaParam {
	m := schemaMap(raw)
	s := anthropic.ToolInputSchemaParam{Properties: m["properties"]}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	extra := map[string]any{}
	for k, v := range m {
		switch k {
		case "type", "properties", "required":
		default:
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		s.ExtraFields = extra
	}
	return s
}
