package main

import (
	"encoding/json"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fake's answers: a value valid against the request's JSON Schema,
// with one item per numbered statement of the prompt where the schema
// asks for a list of them, and values decided by a hash of the statement,
// so a rerun gets the same answers:
//
//   - the judge labels a statement supported (50%), partial (20%),
//     unsupported (25%) or contradicted (5%), quoting the source's first
//     sentence as its evidence;
//   - the check-worthiness classifier calls CheckWorthyRate of the claims
//     check-worthy;
//   - a fact-checker's votes on a statement follow the statement's truth
//     (80% of statements are true) except for 12% flipped and 5%
//     abstaining votes, vote by vote, as independent samples would.

var (
	statementRE = regexp.MustCompile(`(?s)<statement(?: n="(\d+)")?[^>]*>\s*(.*?)\s*</statement>`)
	sourceRE    = regexp.MustCompile(`(?s)(?:<source>\n(.*?)\n</source>|<excerpt n="\d+">\n(.*?)\n</excerpt>)`)
)

// statement is one numbered statement of a prompt.
type statement struct {
	n    int
	text string
}

// statements returns the statements a prompt numbers, in order; a single
// unnumbered statement is number 1.
func statements(prompt string) []statement {
	var out []statement
	for _, m := range statementRE.FindAllStringSubmatch(prompt, -1) {
		n := 1
		if m[1] != "" {
			n, _ = strconv.Atoi(m[1])
		}
		// A statement block may carry more than the statement (its
		// context and results): the statement is its first line.
		text, _, _ := strings.Cut(m[2], "\n")
		text = strings.TrimPrefix(strings.TrimSpace(text), "Statement: ")
		out = append(out, statement{n: n, text: strings.Join(strings.Fields(text), " ")})
	}
	return out
}

// firstSentence returns the first sentence of the first source or
// excerpt a judge prompt shows, verbatim, or "".
func firstSentence(prompt string) string {
	m := sourceRE.FindStringSubmatch(prompt)
	if m == nil {
		return ""
	}
	src := m[1] + m[2]
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 20 {
			continue
		}
		end := len(line)
		if i := strings.Index(line, ". "); i > 20 {
			end = i + 1
		}
		end = min(end, 200)
		for end > 0 && end < len(line) && !utf8.RuneStart(line[end]) {
			end--
		}
		return line[:end]
	}
	return ""
}

// answerCtx is what an answer is made from.
type answerCtx struct {
	model    string
	prompt   string
	stmts    []statement
	evidence string
}

// answer returns the text answering req: "ok" without a schema, else a
// JSON value valid against it.
func (f *fake) answer(req chatRequest) string {
	rf := req.ResponseFormat
	if rf == nil || rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
		return "ok"
	}
	var sch map[string]any
	if json.Unmarshal(rf.JSONSchema.Schema, &sch) != nil {
		return "{}"
	}
	prompt := req.firstUser()
	ac := answerCtx{model: req.Model, prompt: prompt, stmts: statements(prompt), evidence: firstSentence(prompt)}
	var item *statement
	if len(ac.stmts) > 0 {
		item = &ac.stmts[0]
	}
	v := f.value(sch, "", ac, item)
	b, _ := json.Marshal(v)
	return string(b)
}

// value generates a value valid against schema s for the property named
// name, about statement item (nil: none).
func (f *fake) value(s map[string]any, name string, ac answerCtx, item *statement) any {
	typ, _ := s["type"].(string)
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return f.choose(enum, name, ac, item)
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(props))
		label := ""
		for _, k := range keys {
			ps, _ := props[k].(map[string]any)
			if k == "label" {
				label, _ = f.value(ps, k, ac, item).(string)
				out[k] = label
			}
		}
		for _, k := range keys {
			if k == "label" {
				continue
			}
			ps, _ := props[k].(map[string]any)
			switch k {
			case "strength":
				out[k] = map[string]float64{"supported": 0.9, "partial": 0.6, "unsupported": 0.1}[label]
			case "evidence":
				out[k] = ""
				if label == "supported" || label == "partial" || label == "contradicted" {
					out[k] = ac.evidence
				}
			default:
				out[k] = f.value(ps, k, ac, item)
			}
		}
		return out
	case "array":
		is, _ := s["items"].(map[string]any)
		if it, _ := is["type"].(string); it == "object" && numbered(is) != "" {
			out := []any{}
			for i := range ac.stmts {
				out = append(out, f.value(is, name, ac, &ac.stmts[i]))
			}
			return out
		}
		if it, _ := is["type"].(string); it == "integer" && name == "sources" {
			return []any{1, 2}
		}
		return []any{}
	case "integer":
		if (name == "claim" || name == "statement" || name == "n") && item != nil {
			return item.n
		}
		return 0
	case "number":
		return 0.5
	case "boolean":
		switch name {
		case "check_worthy":
			return item != nil && unit(item.text, "worthy") < f.opt.CheckWorthyRate
		case "decision":
			return item != nil && f.vote(ac.model, item.text) == "true"
		}
		return false
	case "string":
		if name == "reason" {
			return "The fake server's reason, one short sentence."
		}
		return ""
	}
	return nil
}

// numbered returns the integer property an item schema numbers
// statements by ("claim", "statement", "n"), or "".
func numbered(item map[string]any) string {
	props, _ := item["properties"].(map[string]any)
	for _, k := range []string{"claim", "statement", "n"} {
		if p, ok := props[k].(map[string]any); ok && p["type"] == "integer" {
			return k
		}
	}
	return ""
}

// choose picks an enum value for the property name.
func (f *fake) choose(enum []any, name string, ac answerCtx, item *statement) any {
	has := func(v string) bool {
		for _, e := range enum {
			if e == v {
				return true
			}
		}
		return false
	}
	if item != nil {
		switch {
		case name == "label" && has("supported") && has("contradicted"):
			u := unit(item.text, ac.evidence)
			switch {
			case u < 0.5:
				return "supported"
			case u < 0.7:
				return "partial"
			case u < 0.95:
				return "unsupported"
			}
			return "contradicted"
		case name == "verdict" && has("true") && has("false"):
			return f.vote(ac.model, item.text)
		}
	}
	return enum[0]
}

// vote answers the next vote of model on a statement.
func (f *fake) vote(model, text string) string {
	f.mu.Lock()
	k := f.votes[model+"\x00"+text]
	f.votes[model+"\x00"+text] = k + 1
	f.mu.Unlock()
	truth := "true"
	if unit(text, "truth") >= 0.8 {
		truth = "false"
	}
	u := unit(text, model+"/"+strconv.Itoa(k))
	switch {
	case u < 0.05:
		return "unverifiable"
	case u < 0.17:
		if truth == "true" {
			return "false"
		}
		return "true"
	}
	return truth
}

// unit hashes s and salt to a number in [0, 1), every bit of the input
// moving the result (FNV-1a alone barely moves for a change in its last
// bytes, so "vote 1" and "vote 2" of a statement would agree).
func unit(s, salt string) float64 {
	return float64(mix(s+"\x00"+salt)>>11) / (1 << 53)
}

// mix is FNV-1a 64 followed by the splitmix64 finaliser.
func mix(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hash32(s string) uint32 { return uint32(mix(s)) }
