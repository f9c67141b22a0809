package construct

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Prompt levels of ReportBench §2.1.2.
const (
	LevelSentence  = "sentence"
	LevelParagraph = "paragraph"
	LevelDetail    = "detail"
)

// Levels lists the prompt levels in the order sample draws from.
var Levels = []string{LevelSentence, LevelParagraph, LevelDetail}

// PromptSet holds the three prompts of one survey. Each prompt states the
// cutoff ("… published before April 2025 …"); Rules is the block the
// evaluation appends (no citing the survey itself, an English survey with
// citations), kept apart because the released prompt column omits it.
type PromptSet struct {
	Sentence  string `json:"sentence"`
	Paragraph string `json:"paragraph"`
	Detail    string `json:"detail"`
	Rules     string `json:"rules"`
	// Cutoff is the month of the survey's last version ("April 2025").
	Cutoff string `json:"cutoff"`
	By     string `json:"by"`
}

// Level returns the prompt of one level.
func (s PromptSet) Level(level string) string {
	switch level {
	case LevelSentence:
		return s.Sentence
	case LevelParagraph:
		return s.Paragraph
	case LevelDetail:
		return s.Detail
	}
	return ""
}

// Prompter writes the three prompts of a survey (reverse prompt
// engineering: a request whose ideal answer is the survey).
type Prompter interface {
	Prompts(ctx context.Context, p Paper, text string) (PromptSet, error)
}

// CutoffMonth returns "April 2025" for the month of t.
func CutoffMonth(t time.Time) string { return t.Format("January 2006") }

// CutoffSentence is the temporal constraint of §2.1.2.
func CutoffSentence(t time.Time) string {
	return fmt.Sprintf("Ensure only papers published before %s are referenced.", CutoffMonth(t))
}

// RulesBlock is the instruction block of seed appendix A.3.
func RulesBlock(title string) string {
	return "You also need to follow the following rules:\n\n" +
		"- Do not refer to the survey titled ``" + title + "``.\n" +
		"- Responses are given in the form of an English language survey with citations where appropriate."
}

// TemplatePrompter is the offline prompt writer: fixed templates filled
// with the survey's topic (its title without "A survey of…"), the
// subtopics its abstract names, and the cutoff. It is deterministic and
// honest about being a template: it does not paraphrase like a model.
type TemplatePrompter struct{}

var (
	surveyWords = lazyregexp.New(`(?i)^\s*(a|an|the)?\s*((brief|short|comprehensive|systematic|critical|scoping|structured|concise|holistic|extensive|tertiary|multivocal|narrative|literature|technical|practical|recent|updated|bibliometric|mapping|empirical)\s+)*(survey|review|overview|literature review|mapping study|tutorial|primer|study)s?\s+(and\s+\w+\s+)?(of|on|for|about|in|to|into|regarding)\s+(the\s+)?`)
	surveyTail  = lazyregexp.New(`(?i)\s*[:\-–—,]+\s*(a|an|the)?\s*((brief|short|comprehensive|systematic|critical|scoping|structured|concise|holistic|extensive|literature|technical|recent|updated|bibliometric|mapping)\s+)*(survey|review|overview|literature review|mapping study|tutorial)(\s+and\s+[\w\s-]+)?\s*$`)
	tailWords   = lazyregexp.New(`(?i)\s*(:|\s[-–—]+\s)\s*[^:]*\b(surveys?|reviews?|overview|tutorial|challenges|opportunities|trends|advances|perspectives?|state[- ]of[- ]the[- ]art|taxonomy|directions|open problems|evaluation|practice)\b.*$`)
	leadWords   = lazyregexp.New(`(?i)^(then|first(ly)?|second(ly)?|third(ly)?|finally|furthermore|moreover|additionally|in addition|above all|next|lastly),?\s+`)
	listRE      = lazyregexp.New(`(?i)\b(including|such as|namely|e\.g\.,?|covering|ranging from)\s+([^.;]+)`)
	selfRef     = lazyregexp.New(`(?i)^(in this (paper|survey|review|article),?\s*|this (paper|survey|review|article)\s+|we\s+(also\s+|further\s+|then\s+|first\s+)?)`)
)

// Topic derives the research topic from a survey title: "A Survey on
// Small-Scale Testbeds for Connected and Automated Vehicles" → "small-scale
// testbeds for connected and automated vehicles".
func Topic(title string) string {
	t := strings.Join(strings.Fields(title), " ")
	if loc := surveyWords.FindStringIndex(t); loc != nil && loc[1] < len(t) {
		t = t[loc[1]:]
	}
	t = surveyTail.ReplaceAllString(t, "")
	t = tailWords.ReplaceAllString(t, "")
	t = strings.TrimRight(strings.TrimSpace(t), ".:;,")
	if t == "" {
		t = strings.TrimSpace(title)
	}
	return sentenceCase(t)
}

// sentenceCase lowercases title-cased words ("Radar", "Small-Scale") and
// keeps acronyms and names with inner capitals ("LiDAR", "GRAFCET", "3D").
func sentenceCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		lowerable := true
		for _, p := range strings.Split(w, "-") {
			_, size := utf8.DecodeRuneInString(p)
			rest := p[min(size, len(p)):]
			if strings.IndexFunc(rest, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) }) >= 0 {
				lowerable = false
			}
		}
		if lowerable {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// subtopics returns up to n items the abstract enumerates ("including A,
// B and C").
func subtopics(abstract string, n int) []string {
	var out []string
	for _, m := range listRE.FindAllStringSubmatch(abstract, -1) {
		for item := range strings.SplitSeq(strings.ReplaceAll(m[2], " and ", ", "), ",") {
			item = strings.Trim(strings.TrimSpace(item), "()")
			if w := len(strings.Fields(item)); w == 0 || w > 8 {
				continue
			}
			out = append(out, item)
			if len(out) == n {
				return out
			}
		}
	}
	return out
}

// sentencesOf splits an abstract into sentences, each ending in one
// period. Abstracts are written prose: "e.g." and "et al." end none.
func sentencesOf(text string) []string {
	var out []string
	for _, sp := range lexical.Sentences(text) {
		if s := strings.TrimSpace(text[sp.Start:sp.End]); s != "" {
			out = append(out, strings.TrimRight(s, ".!? ")+".")
		}
	}
	return out
}

// Prompts fills the templates.
func (TemplatePrompter) Prompts(_ context.Context, p Paper, _ string) (PromptSet, error) {
	last := p.LastVersion()
	if last.IsZero() {
		return PromptSet{}, fmt.Errorf("prompts %s: no version date for the cutoff", p.ID)
	}
	topic := Topic(p.Title)
	cutoff := CutoffMonth(last)
	set := PromptSet{Cutoff: cutoff, Rules: RulesBlock(p.Title), By: "templates"}
	set.Sentence = fmt.Sprintf("Please help me research the academic advancements in %s, and ensure only papers published before %s are referenced.", topic, cutoff)

	subs := subtopics(p.Abstract, 4)
	var para strings.Builder
	fmt.Fprintf(&para, "I am conducting a literature review on %s. I hope you can summarize and analyze the major research directions and methods in this field", topic)
	if len(subs) > 0 {
		fmt.Fprintf(&para, ", particularly %s", joinAnd(subs))
	}
	fmt.Fprintf(&para, ". Please ensure that all the referenced literature is published before %s.", cutoff)
	set.Paragraph = para.String()

	var det strings.Builder
	fmt.Fprintf(&det, "I need a detailed academic research report on %s. The report should systematically review advancements in this field, with a focus on the following aspects:\n\n", topic)
	n := 0
	for _, s := range sentencesOf(p.Abstract) {
		ls := strings.ToLower(s)
		if !strings.Contains(ls, "we ") && !strings.Contains(ls, "this ") && !strings.Contains(ls, "including") && !strings.Contains(ls, "such as") {
			continue
		}
		n++
		fmt.Fprintf(&det, "%d. %s\n", n, aspect(s))
		if n == 4 {
			break
		}
	}
	if n == 0 {
		fmt.Fprintf(&det, "1. The main research directions, methods and open challenges of %s.\n", topic)
	}
	fmt.Fprintf(&det, "\nRestrictions:\n\n- Only refer to and cite papers published **before %s**.\n- Focus on English-language literature published in peer-reviewed journals and conferences.", cutoff)
	set.Detail = det.String()
	return set, nil
}

// aspect rewrites an abstract sentence ("We review X.") as a request
// ("Review X.").
func aspect(s string) string {
	s = leadWords.ReplaceAllString(s, "")
	s = selfRef.ReplaceAllString(s, "")
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// LLMPrompter asks a model for the three prompts, given the survey's
// title, abstract, cutoff and (the start of) its text, as the paper did.
type LLMPrompter struct {
	Completer Completer
	// MaxText caps the survey text sent (default 24,000 characters).
	MaxText int
}

const promptsPrompt = `You write research requests for a benchmark of deep-research agents by reverse
prompt engineering: given a published survey paper, write requests whose ideal answer is
exactly that survey. Write three requests of increasing detail:
- "sentence": one sentence that succinctly names the overarching academic field of the survey;
- "paragraph": a short paragraph on the research area, its main subtopics and the
  methodological perspectives the survey covers;
- "detail": a detailed request describing the specific research domain, the key research
  directions and the methodological approaches of interest; it may add constraints such as
  preferred venues, the language of the literature, or institutions.
Every request must include, in your own words, this time constraint: "%s"
Never mention the survey itself, its title or its authors.

Survey title: %s
Abstract: %s
Beginning of the survey text:
%s

Answer with JSON only: {"sentence": "...", "paragraph": "...", "detail": "..."}`

// Prompts asks the model and checks that each prompt carries the cutoff.
func (c *LLMPrompter) Prompts(ctx context.Context, p Paper, text string) (PromptSet, error) {
	last := p.LastVersion()
	if last.IsZero() {
		return PromptSet{}, fmt.Errorf("prompts %s: no version date for the cutoff", p.ID)
	}
	limit := c.MaxText
	if limit <= 0 {
		limit = 24000
	}
	if len(text) > limit {
		text = text[:limit]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
	}
	cutoff := CutoffMonth(last)
	var out struct {
		Sentence  string `json:"sentence"`
		Paragraph string `json:"paragraph"`
		Detail    string `json:"detail"`
	}
	prompt := fmt.Sprintf(promptsPrompt, CutoffSentence(last), p.Title, p.Abstract, text)
	if err := c.Completer.CompleteJSON(ctx, "build.prompts", prompt, &out); err != nil {
		return PromptSet{}, fmt.Errorf("prompts %s: %w", p.ID, err)
	}
	set := PromptSet{Sentence: strings.TrimSpace(out.Sentence), Paragraph: strings.TrimSpace(out.Paragraph),
		Detail: strings.TrimSpace(out.Detail), Cutoff: cutoff, Rules: RulesBlock(p.Title), By: "llm"}
	for _, l := range Levels {
		s := set.Level(l)
		if s == "" {
			return PromptSet{}, fmt.Errorf("prompts %s: model gave no %s prompt", p.ID, l)
		}
		if !strings.Contains(s, cutoff) {
			// The model dropped the constraint: append it rather than
			// publish a prompt without a horizon.
			s += " " + CutoffSentence(last)
			switch l {
			case LevelSentence:
				set.Sentence = s
			case LevelParagraph:
				set.Paragraph = s
			case LevelDetail:
				set.Detail = s
			}
		}
	}
	return set, nil
}
