package agent_test

import (
	"testing"

	"github.com/claimtrace/claimtrace/internal/agent"
)

func TestToolNames(t *testing.T) {
	tests := []struct {
		search, reader string
		budgets        []int
		wantSearch     string
		wantReader     string
		wantTools      bool
	}{
		{"serpapi", "builtin", []int{5}, "serpapi", "builtin", true},
		{"brave", "jina", []int{0, 3}, "brave", "jina", true},
		{"serpapi", "builtin", []int{0}, agent.SearchNone, "", false},
		{"serpapi", "builtin", nil, agent.SearchNone, "", false},
		{agent.SearchNative, "builtin", []int{3, 5}, agent.SearchNative, "", false},
		{agent.SearchNative, "", []int{0}, agent.SearchNative, "", false},
	}
	for _, tt := range tests {
		s, r, tools := agent.ToolNames(tt.search, tt.reader, tt.budgets)
		if s != tt.wantSearch || r != tt.wantReader || tools != tt.wantTools {
			t.Errorf("ToolNames(%q, %q, %v) = %q, %q, %v; want %q, %q, %v", tt.search, tt.reader, tt.budgets, s, r, tools, tt.wantSearch, tt.wantReader, tt.wantTools)
		}
	}
}
