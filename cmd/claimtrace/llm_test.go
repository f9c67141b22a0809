package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/llm/llmtest"
)

const fakeKey = "sk-fake-0123456789ABCDEFsecret"

// isolateLLMEnv gives the test a config dir of its own and clears every
// provider variable, so no user configuration or real key leaks in.
func isolateLLMEnv(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	for _, v := range []string{"CLAIMTRACE_CONFIG", "CLAIMTRACE_MODEL", "CLAIMTRACE_MAX_COST", "CLAIMTRACE_MAX_CALLS",
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL",
		"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(v, "")
	}
	return dir
}

func TestLLMCheckOpenAI(t *testing.T) {
	isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	srv.RequireKey(fakeKey)
	srv.Enqueue(llmtest.Reply{Text: "OK", Model: "gpt-4o-mini-2024-07-18", Usage: &llmtest.Usage{Input: 14, Output: 1}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", fakeKey)

	out, errOut, code := cli(t, "llm", "check", "--model", "openai:gpt-4o-mini")
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	for _, want := range []string{
		`(?m)^provider\s+openai$`,
		`(?m)^model\s+gpt-4o-mini \(served as gpt-4o-mini-2024-07-18\)$`,
		`(?m)^latency\s+\d+(\.\d+)?(ms|µs|s)$`,
		`(?m)^tokens\s+14 in \(0 cached\), 1 out \(0 reasoning\)$`,
		`(?m)^cost\s+\$0\.0000\d\d `,
		`(?m)^answer\s+OK$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	calls := srv.Calls()
	if len(calls) != 1 || !strings.Contains(calls[0].Prompt, "OK") {
		t.Errorf("server got %d calls (%+v), want one tiny request", len(calls), calls)
	}
}

func TestLLMCheckNamedGeminiFromConfig(t *testing.T) {
	dir := isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("OK"))
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(`
[llm]
model = "flash"

[llm.models.flash]
provider = "gemini"
model = "gemini-2.5-flash"
base_url = "`+srv.URL+`"
key_env = "MY_GEMINI_KEY"
`), 0o600)
	t.Setenv("MY_GEMINI_KEY", fakeKey)

	out, errOut, code := cli(t, "--config", cfg, "llm", "check")
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	if !strings.Contains(out, "provider  gemini") || !strings.Contains(out, "gemini-2.5-flash") {
		t.Errorf("output:\n%s", out)
	}
	if c := srv.Calls(); len(c) != 1 || c[0].Protocol != llmtest.Gemini || c[0].APIKey != fakeKey || c[0].Model != "gemini-2.5-flash" {
		t.Errorf("request = %+v", c)
	}
}

func TestLLMCheckFailures(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, srv *llmtest.Server)
		args    []string
		wantErr string
	}{
		{"no key", func(t *testing.T, srv *llmtest.Server) {
			t.Setenv("OPENAI_BASE_URL", "")
		}, []string{"--model", "openai:gpt-4o"}, "set OPENAI_API_KEY"},
		{"no gemini key", nil, []string{"--model", "gemini:gemini-2.5-pro"}, "set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"wrong key", func(t *testing.T, srv *llmtest.Server) {
			srv.RequireKey("the-right-key")
			t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
			t.Setenv("ANTHROPIC_API_KEY", fakeKey)
		}, []string{"--model", "anthropic:claude-sonnet-4-5"}, "authentication failed (http 401 authentication_error)"},
		{"unknown model", func(t *testing.T, srv *llmtest.Server) {
			srv.Enqueue(llmtest.Fail(llmtest.ModelNotFound))
			t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
			t.Setenv("OPENAI_API_KEY", fakeKey)
		}, []string{"--model", "openai:gpt-9"}, "model not found (http 404 model_not_found)"},
		{"no model", nil, nil, "no model: pass --model"},
		{"bad spec", nil, []string{"--model", "gpt-4o"}, "want provider:model"},
		{"rate limited: one attempt only", func(t *testing.T, srv *llmtest.Server) {
			srv.Enqueue(llmtest.Fail(llmtest.RateLimit), llmtest.Text("OK"))
			t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
			t.Setenv("OPENAI_API_KEY", fakeKey)
		}, []string{"--model", "openai:gpt-4o"}, "rate limited (http 429 rate_limit_exceeded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateLLMEnv(t)
			srv := llmtest.NewServer(t)
			if tt.setup != nil {
				tt.setup(t, srv)
			}
			out, errOut, code := cli(t, append([]string{"llm", "check"}, tt.args...)...)
			if code == 0 {
				t.Fatalf("exit 0, want failure; stdout: %s", out)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to say %q", errOut, tt.wantErr)
			}
			if strings.Contains(out+errOut, fakeKey) || strings.Contains(out+errOut, "0123456789ABCDEF") {
				t.Errorf("key leaked: %s %s", out, errOut)
			}
		})
	}
}

func TestConfigShowRedacts(t *testing.T) {
	dir := isolateLLMEnv(t)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(`
[llm]
model = "judge"
max_cost = 12.5

[llm.models.judge]
provider = "anthropic"
model = "claude-sonnet-4-5"
key_env = "TEAM_CLAUDE_KEY"
concurrency = 3

[llm.models.local]
provider = "openai"
model = "qwen2.5:7b"
base_url = "http://localhost:11434/v1"
`), 0o600)
	t.Setenv("TEAM_CLAUDE_KEY", "team-secret-value-123456")
	t.Setenv("OPENAI_API_KEY", fakeKey)
	t.Setenv("CLAIMTRACE_MAX_CALLS", "300")

	for _, args := range [][]string{{"config"}, {"config", "--show"}} {
		out, errOut, code := cli(t, append([]string{"--config", cfg}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.Contains(out, "team-secret-value-123456") || strings.Contains(out, fakeKey) {
			t.Errorf("%v leaks a key:\n%s", args, out)
		}
		for _, want := range []string{
			"# config file: " + cfg,
			"environment overrides: CLAIMTRACE_MAX_CALLS",
			"run budget: $12.5, 300 calls",
			"key TEAM_CLAUDE_KEY (set)",
			"judge [default]",
			"http://localhost:11434/v1",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v output lacks %q:\n%s", args, want, out)
			}
		}
		if show := len(args) == 2; show != strings.Contains(out, "[llm.models.judge]") {
			t.Errorf("%v: TOML dump present = %v", args, !show)
		}
	}
}

func TestConfigEnvValidation(t *testing.T) {
	isolateLLMEnv(t)
	t.Setenv("CLAIMTRACE_MAX_COST", "lots")
	if _, errOut, code := cli(t, "config"); code == 0 || !strings.Contains(errOut, "CLAIMTRACE_MAX_COST") {
		t.Errorf("exit %d, stderr %q; want a clear error about CLAIMTRACE_MAX_COST", code, errOut)
	}
}

func TestLLMCheckWeb(t *testing.T) {
	isolateLLMEnv(t)
	srv := llmtest.NewServer(t)
	text := "OK. Today is a Sunday."
	srv.Enqueue(llmtest.Web(text, llmtest.Citation{URL: "https://time.example/", Title: "Time", Start: 4, End: len(text)}))
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", fakeKey)
	out, errOut, code := cli(t, "llm", "check", "--model", "openai:gpt-4o", "--web")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`(?m)^web\s+1 searches, 1 sources, 1 citations$`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
	if c := srv.Calls(); len(c) != 1 || c[0].Protocol != llmtest.OpenAIResponses {
		t.Errorf("web check did not use the Responses API: %+v", c)
	}
}
