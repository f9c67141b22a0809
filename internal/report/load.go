package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// MaxReportBytes is the largest report file Load and Decode accept. Real
// deep-research reports are well under 1 MiB; the cap keeps a stray
// multi-gigabyte file from being read into memory.
const MaxReportBytes = 16 << 20

// textKeys are the JSON fields that may hold a report's text, in order of
// preference. The first six are the reports-directory contract
// (docs/design.md); "article" is DeepResearch Bench's field, "report" and
// "answer" are common in agent outputs.
var textKeys = []string{"response", "content", "text", "message", "output", "result", "article", "report", "answer"}

// Load reads a report file and returns its text.
//
// A <id>.json file holds the text in the first non-empty of the fields
// response, content, text, message, output, result (then article, report,
// answer), as a string, as {"content": "…"} / {"text": "…"}, or as a list of
// content blocks ([{"type": "text", "text": "…"}], OpenAI Responses
// "output"); an OpenAI chat completion (choices[0].message.content) and a
// Gemini response (candidates[0].content.parts) are read too. A <id>.pdf
// or <id>.docx is read by package document: the text of the PDF's text
// layer, or the Word document as Markdown-like text; the claims' and
// citations' byte spans index that text (`claimtrace parse --text FILE`
// prints it). Any other file (<id>.md, <id>.txt) is the text itself, unless
// its first bytes are a PDF's or a zip's; a .doc, .odt, .rtf, .pages or
// .epub is refused with what to do. A leading byte-order mark is dropped.
//
// Errors name the file and wrap claimtrace.ErrTooLarge (over MaxReportBytes,
// checked before reading), claimtrace.ErrInvalid (not a regular file, invalid
// JSON, no text field, invalid UTF-8 with its byte offset, empty text) or the
// I/O error. The file is read by ReadFile: a named pipe or a device is
// refused without waiting on it.
func Load(path string) (string, error) {
	return LoadMax(path, MaxReportBytes)
}

// LoadMax is Load with a lower size limit than MaxReportBytes (a higher
// one is cut to it, as Decode refuses more).
func LoadMax(path string, max int64) (string, error) {
	data, err := ReadFile(path, min(max, MaxReportBytes))
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return Decode(path, data)
}

// Decode applies Load's rules to a report already read; name is the file
// name (its extension selects JSON, plain text, PDF or Word) and appears in
// errors.
func Decode(name string, data []byte) (string, error) {
	if len(data) > MaxReportBytes {
		return "", fmt.Errorf("report %s: over the %d-byte limit: %w", name, MaxReportBytes, claimtrace.ErrTooLarge)
	}
	if text, ok, err := decodeDocument(name, data); ok {
		return text, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if off := invalidUTF8(data); off >= 0 {
		return "", fmt.Errorf("report %s: invalid UTF-8 at byte %d: %w", name, off, claimtrace.ErrInvalid)
	}
	var text string
	if strings.EqualFold(filepath.Ext(name), ".json") {
		t, err := decodeJSON(data)
		if err != nil {
			return "", fmt.Errorf("report %s: %w", name, err)
		}
		text = t
	} else {
		text = string(data)
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("report %s: empty report text: %w", name, claimtrace.ErrInvalid)
	}
	return text, nil
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// decodeJSON extracts the report text from a JSON document.
func decodeJSON(data []byte) (string, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return "", fmt.Errorf("invalid JSON at byte %d: %v: %w", se.Offset, se, claimtrace.ErrInvalid)
		}
		return "", fmt.Errorf("invalid JSON: not an object: %v: %w", err, claimtrace.ErrInvalid)
	}
	for _, k := range textKeys {
		if t := textOf(doc[k], 0); strings.TrimSpace(t) != "" {
			return t, nil
		}
	}
	// OpenAI chat completions and Gemini responses.
	for _, k := range []string{"choices", "candidates"} {
		if t := textOf(doc[k], 0); strings.TrimSpace(t) != "" {
			return t, nil
		}
	}
	// A failed run of `claimtrace run` (or a similar runner) records its
	// status and error instead of a report: say so.
	var status, errText string
	if raw, ok := doc["status"]; ok && json.Unmarshal(raw, &status) == nil && status != "" && status != "done" {
		if raw, ok := doc["error"]; ok {
			json.Unmarshal(raw, &errText)
		}
		return "", fmt.Errorf("no report: the run recorded this task as %s: %s (rerun the agent to retry it): %w", status, errText, claimtrace.ErrInvalid)
	}
	keys := slices.Sorted(maps.Keys(doc))
	return "", fmt.Errorf("no text in any of the fields %s (found %s): %w", strings.Join(textKeys, ", "), strings.Join(keys, ", "), claimtrace.ErrInvalid)
}

// textOf returns the text held by a JSON value: a string; an object's
// "content", "text", "message" or "parts" (recursively); the concatenated
// texts of a list of content blocks or choices. Depth is bounded.
func textOf(raw json.RawMessage, depth int) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || depth > 5 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return ""
		}
		for _, k := range []string{"content", "text", "message", "parts", "output_text"} {
			if t := textOf(obj[k], depth+1); strings.TrimSpace(t) != "" {
				return t
			}
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		var parts []string
		for _, it := range items {
			if t := textOf(it, depth+1); strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
			if len(parts) > 0 && isChoiceList(it) {
				break // the first choice or candidate is the answer
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// isChoiceList reports whether a list item is an OpenAI choice or a Gemini
// candidate (alternatives, of which only the first is the answer) rather
// than a content block (parts of one answer).
func isChoiceList(item json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(item, &obj) != nil {
		return false
	}
	_, choice := obj["finish_reason"]
	_, cand := obj["finishReason"]
	_, msg := obj["message"]
	_, idx := obj["index"]
	return choice || cand || (msg && idx)
}
