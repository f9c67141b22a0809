package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, file, data, want string
	}{
		{"response string", "a.json", `{"response": "The report.", "content": "other"}`, "The report."},
		{"empty response falls through", "a.json", `{"response": "  ", "content": "From content."}`, "From content."},
		{"null response falls through", "a.json", `{"response": null, "text": "From text."}`, "From text."},
		{"message object", "a.json", `{"message": {"role": "assistant", "content": "From message."}}`, "From message."},
		{"output string", "a.json", `{"id": "x", "output": "From output."}`, "From output."},
		{"result", "a.json", `{"result": "From result."}`, "From result."},
		{"article (DeepResearch Bench)", "a.json", `{"id": 1, "prompt": "q", "article": "From article."}`, "From article."},
		{"anthropic content blocks", "a.json", `{"content": [{"type": "text", "text": "Part one."}, {"type": "tool_use", "id": "x"}, {"type": "text", "text": "Part two."}]}`, "Part one.\n\nPart two."},
		{"openai responses output", "a.json", `{"output": [{"type": "reasoning", "summary": []}, {"type": "message", "content": [{"type": "output_text", "text": "Answer text."}]}]}`, "Answer text."},
		{"openai chat completion", "a.json", `{"choices": [{"index": 0, "message": {"role": "assistant", "content": "First choice."}, "finish_reason": "stop"}, {"index": 1, "message": {"content": "Second."}, "finish_reason": "stop"}]}`, "First choice."},
		{"gemini candidates", "a.json", `{"candidates": [{"content": {"parts": [{"text": "Gemini "}, {"text": "answer."}]}, "finishReason": "STOP"}]}`, "Gemini \n\nanswer."},
		{"markdown", "a.md", "# Title\n\nText.", "# Title\n\nText."},
		{"text", "A.TXT", "plain", "plain"},
		{"byte-order mark", "a.md", "\xef\xbb\xbfText.", "Text."},
		{"json extension any case", "a.JSON", `{"text": "T"}`, "T"},
	}
	for _, tt := range tests {
		got, err := Decode(tt.file, []byte(tt.data))
		if err != nil {
			t.Errorf("%s: Decode: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: Decode = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, file, data string
		is               error
		mention          []string
	}{
		{"invalid json", "r1.json", `{"response": "x"`, claimtrace.ErrInvalid, []string{"r1.json", "invalid JSON"}},
		{"json array", "r2.json", `["x"]`, claimtrace.ErrInvalid, []string{"r2.json", "not an object"}},
		{"no text field", "r3.json", `{"title": "x", "prompt": "y"}`, claimtrace.ErrInvalid, []string{"r3.json", "no text", "prompt, title"}},
		{"empty text", "r4.json", `{"response": ""}`, claimtrace.ErrInvalid, []string{"r4.json"}},
		{"empty markdown", "r5.md", " \n\t", claimtrace.ErrInvalid, []string{"r5.md", "empty"}},
		{"invalid utf-8", "r6.md", "ok \xff\xfe bad", claimtrace.ErrInvalid, []string{"r6.md", "invalid UTF-8 at byte 3"}},
		{"invalid utf-8 in json", "r7.json", "{\"response\": \"\xc3\x28\"}", claimtrace.ErrInvalid, []string{"r7.json", "byte 14"}},
		{"too large", "r8.md", strings.Repeat("a", MaxReportBytes+1), claimtrace.ErrTooLarge, []string{"r8.md"}},
	}
	for _, tt := range tests {
		_, err := Decode(tt.file, []byte(tt.data))
		if err == nil {
			t.Errorf("%s: Decode succeeded, want error", tt.name)
			continue
		}
		if !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v is not %v", tt.name, err, tt.is)
		}
		for _, m := range tt.mention {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, m)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := Load(write("2101.00001.json", `{"response": "Report [1]."}`))
	if err != nil || got != "Report [1]." {
		t.Errorf("Load json = %q, %v", got, err)
	}
	got, err = Load(write("2101.00002.md", "# R\n\nText."))
	if err != nil || got != "# R\n\nText." {
		t.Errorf("Load md = %q, %v", got, err)
	}

	// Over the limit: rejected from the file size, without reading it.
	big := filepath.Join(dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse 1 GiB
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(big); !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), "big.md") {
		t.Errorf("Load(1 GiB) error = %v, want ErrTooLarge naming the file", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load(missing) error = %v, want ErrNotExist naming the file", err)
	}
	if _, err := Load(dir); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Load(dir) error = %v, want ErrInvalid", err)
	}
	if _, err := Load(write("bad.json", "{")); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("Load(bad json) error = %v", err)
	}
}

func TestDecodeFailedRunRecord(t *testing.T) {
	_, err := Decode("2101.00002.json", []byte(`{"task_id":"2101.00002","status":"context_length","error":"prompt too long","prompt":"Please research widgets and write a long survey about them."}`))
	if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "recorded this task as context_length: prompt too long") {
		t.Errorf("Decode(failed run record) = %v, want the run's status and error, never the prompt as a report", err)
	}
}
