package construct

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The application domains of ReportBench §2.1.3, spelled as in the released
// ReportBench_v1.1.jsonl (the paper's figure uses slightly different names).
const (
	DomainBasic     = "Basic Research and Scientific Exploration"
	DomainICT       = "Information and Communication Technology (ICT)"
	DomainAI        = "Artificial Intelligence and Data Intelligence"
	DomainHealth    = "Healthcare and Biomedicine"
	DomainMaking    = "Manufacturing and Smart Manufacturing"
	DomainTransport = "Transportation and Intelligent Mobility"
	DomainSafety    = "Public Safety and Social Governance"
	DomainFinance   = "Finance and Business Services"
	DomainEnergy    = "Energy and Environmental Sustainability"
	DomainCulture   = "Culture, Media and Digital Content"
	DomainUnknown   = "Unknown Category"
)

// Domains lists the ten sampled domains in the paper's order (A–J).
var Domains = []string{
	DomainBasic, DomainICT, DomainAI, DomainHealth, DomainMaking,
	DomainTransport, DomainSafety, DomainFinance, DomainEnergy, DomainCulture,
}

// DomainDecision is a paper's application domain and why.
type DomainDecision struct {
	Domain string   `json:"domain"`
	Why    []string `json:"why"`
	By     string   `json:"by"`
}

// DomainClassifier assigns an application domain (or DomainUnknown).
type DomainClassifier interface {
	Domain(ctx context.Context, p Paper) (DomainDecision, error)
}

// domainRule votes for a domain when its pattern matches the title (weight
// 3) or the abstract (weight 1).
type domainRule struct {
	domain string
	re     *regexp.Regexp
}

// CategoryDomains is the offline domain classifier. Application words in
// the title and abstract vote first (an AI survey of medical imaging is
// Healthcare, an autonomous-driving survey is Transportation: the
// application decides, as in the released data); when no application
// word is present, the arXiv categories decide (physics, mathematics and
// the other sciences → Basic Research; networking, systems, software →
// ICT; learning, vision, language → AI; q-fin → Finance; q-bio → Health).
type CategoryDomains struct {
	rules []domainRule
}

// NewCategoryDomains returns the offline domain classifier.
func NewCategoryDomains() *CategoryDomains {
	mk := func(domain, pattern string) domainRule {
		return domainRule{domain: domain, re: regexp.MustCompile(`(?i)\b(` + pattern + `)`)}
	}
	return &CategoryDomains{rules: []domainRule{
		mk(DomainTransport, `autonomous (driving|vehicles?|cars?)|self-driving|driver|traffic|vehicular|vehicles?\b|transportation|railways?|trains?\b|aviation|aircraft|maritime|ships?\b|vessels?|mobility|pedestrian|trajectory prediction|lidar|radar|uav|drones?|unmanned aerial|intelligent transport|road\b|parking`),
		mk(DomainHealth, `medic(al|ine)|clinic(al|ians?)|health|disease|patients?|hospital|biomedic|drugs?\b|genom|protein|cancer|tumou?r|diagnos|surgery|surgical|radiolog|patholog|covid|epidemi|ehr\b|electronic health|mri\b|ct scans?|brain|neuro|mental|cell(s|ular)?\b|molecul|pharma|biolog`),
		mk(DomainFinance, `financ|stock|trading|banks?\b|banking|credit|fintech|cryptocurrenc|blockchain|business|marketing|e-commerce|economic|accounting|insurance|auditing|customers?|enterprise|supply chain`),
		mk(DomainEnergy, `energy|power (systems?|grids?)|smart grids?|electricity|batter(y|ies)|renewable|solar|wind (power|energy|turbines?)|photovoltaic|climate|carbon|emission|environment(al)?|sustainab|hydrogen|fuel|nuclear|weather|pollution|agricultur|water`),
		mk(DomainMaking, `manufactur|industr(y|ial)|factory|factories|production lines?|predictive maintenance|fault diagnos|digital twins?|additive|3d printing|machining|industrial robots?|robotic (assembly|construction|welding)|construction|automation|process mining|plc\b|grafcet|cyber-physical|quality inspection|defect detection`),
		mk(DomainSafety, `crime|criminal|forensic|surveillance|disaster|emergency|public safety|misinformation|disinformation|fake news|hate speech|deception|person (search|re-identification)|face recognition|facial|law\b|legal|government|governance|polic(e|ing)|terroris|fraud|social good|labou?r market|job market|elections?|citizens?`),
		mk(DomainCulture, `music|art(s|istic|work)?\b|painting|film|cinema|movies?|video games?|games?\b|media\b|social media|news\b|entertainment|cultur(e|al)|heritage|museum|virtual reality|augmented reality|metaverse|affective|emotion|aesthetic|image generation|text-to-image|creative|storytelling|fashion|sports?\b|education(al)?|learning analytics`),
		mk(DomainICT, `security|malware|intrusion|privacy|cyber|recommend(er|ation)|information retrieval|search engines?|networks? (protocol|traffic|slicing)|wireless|5g|6g|mobile (networks?|edge)|communications?\b|internet of things|\biot\b|edge computing|cloud|distributed systems?|software|code (search|generation)|programming|compil|databases?|query|data management|operating systems?|hardware|fpga|semiconductor|chips?\b|microservices|web services|serverless|satellite communication`),
		mk(DomainAI, `deep learning|machine learning|neural networks?|large language models?|llms?\b|language models?|transformers?|reinforcement learning|computer vision|natural language|knowledge distillation|graph neural|generative|federated learning|artificial intelligence|\bai\b`),
		mk(DomainBasic, `physics|quantum|cosmolog|astro|galax|stars?\b|gravit|particle|chemi(stry|cal)|materials? (science|discovery)|mathemat|theorem|equations?|dynamical systems|condensed matter|superconduct|geolog|earth science|scientific (discovery|computing)|simulation`),
	}}
}

// categoryDomain maps arXiv archives and categories to a fallback domain.
func categoryDomain(categories string) (string, string) {
	cats := strings.Fields(categories)
	for _, c := range cats {
		switch {
		case strings.HasPrefix(c, "q-fin.") || strings.HasPrefix(c, "econ."):
			return DomainFinance, c
		case strings.HasPrefix(c, "q-bio.") || c == "physics.med-ph":
			return DomainHealth, c
		}
	}
	if len(cats) == 0 {
		return DomainUnknown, ""
	}
	c := cats[0]
	switch {
	case c == "cs.NI" || c == "cs.DC" || c == "cs.SE" || c == "cs.DB" || c == "cs.AR" || c == "cs.OS" ||
		c == "cs.PL" || c == "cs.PF" || c == "cs.IT" || c == "eess.SP" || c == "cs.ET" || c == "cs.MM" || c == "cs.IR" || c == "cs.CR":
		return DomainICT, c
	case c == "cs.CY" || c == "cs.SI":
		return DomainSafety, c
	case c == "cs.RO" || c == "eess.SY" || c == "cs.SY":
		return DomainMaking, c
	case c == "cs.SD" || c == "eess.AS" || c == "cs.GR" || c == "cs.HC":
		return DomainCulture, c
	case strings.HasPrefix(c, "cs.") || c == "stat.ML" || c == "eess.IV":
		return DomainAI, c
	case strings.HasPrefix(c, "eess."):
		return DomainICT, c
	case strings.HasPrefix(c, "physics.ao-ph") || strings.HasPrefix(c, "physics.soc-ph"):
		return DomainEnergy, c
	case strings.HasPrefix(c, "astro-ph") || strings.HasPrefix(c, "physics") || strings.HasPrefix(c, "cond-mat") ||
		strings.HasPrefix(c, "quant-ph") || strings.HasPrefix(c, "hep-") || strings.HasPrefix(c, "gr-qc") ||
		strings.HasPrefix(c, "math") || strings.HasPrefix(c, "nucl-") || strings.HasPrefix(c, "nlin") || strings.HasPrefix(c, "stat."):
		return DomainBasic, c
	}
	return DomainUnknown, c
}

// Domain votes with the application words, then falls back on categories.
func (c *CategoryDomains) Domain(_ context.Context, p Paper) (DomainDecision, error) {
	votes := make(map[string]int)
	var why []string
	for _, r := range c.rules {
		w := 0
		if m := r.re.FindString(p.Title); m != "" {
			w += 3
			why = append(why, fmt.Sprintf("title %q", strings.ToLower(m)))
		}
		if ms := r.re.FindAllString(p.Abstract, -1); len(ms) > 0 {
			w += min(len(ms), 3)
		}
		if w > 0 {
			votes[r.domain] += w
		}
	}
	// The generic AI and basic-science words only decide when no
	// application domain scored.
	best, bestVotes := "", 0
	for _, d := range Domains {
		if d == DomainAI || d == DomainBasic {
			continue
		}
		if votes[d] > bestVotes {
			best, bestVotes = d, votes[d]
		}
	}
	if best != "" && bestVotes >= 3 {
		return DomainDecision{Domain: best, Why: append(why, fmt.Sprintf("application words: %d", bestVotes)), By: "rules"}, nil
	}
	dom, cat := categoryDomain(p.Categories)
	if dom == DomainAI || dom == DomainBasic || dom == DomainUnknown {
		// Let application words with weaker evidence win over the generic
		// fallback.
		if best != "" && bestVotes >= 2 {
			return DomainDecision{Domain: best, Why: append(why, fmt.Sprintf("application words: %d", bestVotes)), By: "rules"}, nil
		}
	}
	return DomainDecision{Domain: dom, Why: append(why, "category "+cat), By: "rules"}, nil
}

// LLMDomains asks a model, as the paper did with Gemini 2.5 Pro.
type LLMDomains struct {
	Completer Completer
}

const domainPrompt = `Classify the research paper below into exactly one application domain.
Choose from this list, or answer "Unknown Category" when you are not sure:
%s

Title: %s

Abstract: %s

Answer with JSON only: {"domain": "<one name from the list, exactly as written>", "reason": "<one sentence>"}`

// Domain asks the model; an answer outside the list is an error.
func (c *LLMDomains) Domain(ctx context.Context, p Paper) (DomainDecision, error) {
	var list strings.Builder
	for i, d := range append(slices.Clone(Domains), DomainUnknown) {
		fmt.Fprintf(&list, "%c. %s\n", 'A'+i, d)
	}
	var out struct {
		Domain string `json:"domain"`
		Reason string `json:"reason"`
	}
	prompt := fmt.Sprintf(domainPrompt, strings.TrimSpace(list.String()), p.Title, p.Abstract)
	if err := c.Completer.CompleteJSON(ctx, "build.domains", prompt, &out); err != nil {
		return DomainDecision{}, fmt.Errorf("domain %s: %w", p.ID, err)
	}
	dom := strings.TrimSpace(out.Domain)
	if len(dom) > 3 && dom[1] == '.' && dom[0] >= 'A' && dom[0] <= 'K' {
		dom = strings.TrimSpace(dom[2:])
	}
	if !slices.Contains(Domains, dom) && dom != DomainUnknown {
		return DomainDecision{}, fmt.Errorf("domain %s: model answered %q, not a listed domain", p.ID, out.Domain)
	}
	return DomainDecision{Domain: dom, Why: []string{strings.TrimSpace(out.Reason)}, By: "llm"}, nil
}
