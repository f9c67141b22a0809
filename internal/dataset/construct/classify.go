package construct

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// SurveyDecision is the answer to "is this paper a literature survey?".
type SurveyDecision struct {
	Survey bool `json:"survey"`
	// Score is the rule score (offline) or 1/0 (LLM).
	Score int `json:"score"`
	// Why lists the rules that fired, or the model's reason.
	Why []string `json:"why"`
	// By names the classifier: "rules" or "llm".
	By string `json:"by"`
}

// SurveyClassifier decides whether a candidate is a literature survey
// (ReportBench §2.1.1 used GPT-4o on title and abstract to remove false
// positives such as astronomical sky surveys).
type SurveyClassifier interface {
	Classify(ctx context.Context, p Paper) (SurveyDecision, error)
}

// rule is one weighted pattern of the offline classifier.
type rule struct {
	name   string
	weight int
	field  string // "title" or "abstract"
	re     *regexp.Regexp
}

// RuleClassifier is the offline survey classifier: a transparent, weighted
// list of patterns over title and abstract. Each decision lists the rules
// that fired. The rules favour literature reviews ("this survey", "we
// review", "systematic literature review", "taxonomy") and penalise the
// other meanings of the words: observational surveys in astronomy ("sky
// survey", "redshift survey"), questionnaires ("we surveyed 200
// developers"), peer and code review, product reviews.
type RuleClassifier struct {
	rules []rule
	// Threshold is the minimum score of a survey (default 2).
	Threshold int
}

// NewRuleClassifier returns the offline classifier with its built-in rules.
func NewRuleClassifier() *RuleClassifier {
	mk := func(name string, weight int, field, pattern string) rule {
		return rule{name: name, weight: weight, field: field, re: regexp.MustCompile(`(?i)` + pattern)}
	}
	return &RuleClassifier{Threshold: 2, rules: []rule{
		// Positive: the title says what the paper is.
		mk("title:survey", 2, "title", `\bsurvey(s|ing)?\b`),
		mk("title:review", 2, "title", `\b(review|overview)\b`),
		mk("title:systematic-review", 2, "title", `\b(systematic|literature|scoping|narrative|critical|comprehensive|mapping)\s+(literature\s+)?(review|survey|study)`),
		mk("title:state-of-the-art", 1, "title", `\b(state[- ]of[- ]the[- ]art|tutorial|taxonomy|perspectives?|challenges and (opportunities|future|open))\b`),
		// Positive: the abstract describes a literature review.
		mk("abstract:this-survey", 2, "abstract", `\b(this|our|the present|in this)\s+(survey|review|overview|paper surveys|article reviews|paper reviews)\b`),
		mk("abstract:we-review", 2, "abstract", `\bwe\s+(comprehensively\s+|systematically\s+|briefly\s+|extensively\s+|thoroughly\s+)?(survey|review|overview)\b`),
		mk("abstract:we-summarize", 1, "abstract", `\bwe\s+(comprehensively\s+|systematically\s+|briefly\s+)?(summari[sz]e|categori[sz]e|classify (the|existing))\b`),
		mk("abstract:literature", 1, "abstract", `\b(literature|existing (works|studies|methods|approaches|research)|state[- ]of[- ]the[- ]art (methods|approaches|techniques)|recent (advances|progress|developments))\b`),
		mk("abstract:taxonomy", 1, "abstract", `\b(taxonomy|categori[sz]ation|classification of (existing|the) (methods|approaches|works))\b`),
		mk("abstract:future-directions", 1, "abstract", `\b(future (research )?directions|open (challenges|problems|issues|questions)|research gaps?)\b`),
		mk("abstract:systematic-review", 2, "abstract", `\b(systematic (literature )?review|scoping review|mapping study|meta-analysis|PRISMA)\b`),
		// Negative: observational surveys (astronomy, geodesy).
		mk("astro-survey", -4, "title", `\b(sky|redshift|galaxy|photometric|spectroscopic|imaging|radio|deep|legacy|legacy imaging|pulsar|transient|cluster|lensing|cosmological|HI|X-ray|infrared)\s+survey\b`),
		mk("astro-survey", -4, "abstract", `\b(sky|redshift|galaxy|photometric|spectroscopic|imaging|radio|pulsar|transient|lensing|cosmological|X-ray|infrared|all-sky)\s+survey\b`),
		mk("astro-survey", -4, "title", `(\b(Spitzer|Hubble|Chandra|XMM|SDSS|2MASS|GALEX|WISE|Herschel|ALMA|VLA|LOFAR|c2d|Gaia|Kepler|TESS)\b.*\bsurvey|\bsurvey of (the )?(\w+[, ]+){0,3}(clouds?|galaxies|stars|quasars|clusters|pulsars|nebulae|fields?|sky)\b)`),
		mk("astro-data", -2, "abstract", `\b(survey (data|telescope|field|area|footprint|catalog(ue)?)|(SDSS|DESI|LSST|Gaia|DES|Euclid|eROSITA|Pan-STARRS)\b)`),
		// Negative: questionnaires and user studies.
		mk("questionnaire", -2, "abstract", `\b(we (conducted|ran|administered|distributed|carried out) (an? )?(online |large-scale |web-based )?survey|survey (of|with|among) \d+|questionnaire|respondents|survey participants|interviewed)\b`),
		mk("questionnaire", -3, "title", `\b(a survey of (users|developers|practitioners|students|teachers|physicians|researchers)|questionnaire|survey study)\b`),
		// Negative: review as a process or an object.
		mk("peer-or-code-review", -3, "title", `\b(peer[- ]review(ing)?|code review|reviewer|review(er)? assignment|review generation|product reviews?|app reviews?|online reviews?|customer reviews?|movie reviews?)\b`),
		mk("peer-or-code-review", -2, "abstract", `\b(peer[- ]review process|code reviews? (is|are)|reviewers? (assignment|recommendation)|(product|customer|online|user|app) reviews)\b`),
	}}
}

// Classify scores title and abstract.
func (c *RuleClassifier) Classify(_ context.Context, p Paper) (SurveyDecision, error) {
	d := SurveyDecision{By: "rules"}
	fired := map[string]bool{}
	for _, r := range c.rules {
		text := p.Title
		if r.field == "abstract" {
			text = p.Abstract
		}
		if fired[r.name+"/"+r.field] || !r.re.MatchString(text) {
			continue
		}
		fired[r.name+"/"+r.field] = true
		d.Score += r.weight
		d.Why = append(d.Why, fmt.Sprintf("%s(%+d)", r.name, r.weight))
	}
	threshold := c.Threshold
	if threshold == 0 {
		threshold = 2
	}
	d.Survey = d.Score >= threshold
	return d, nil
}

// LLMClassifier asks a model, as the paper did with GPT-4o.
type LLMClassifier struct {
	Completer Completer
}

// classifyPrompt is the binary survey question on title and abstract.
const classifyPrompt = `You are screening arXiv papers to build a benchmark of literature surveys.
Decide whether the paper below is a literature survey or review: a paper whose main
contribution is to collect, organise and discuss prior research on a topic. Observational
surveys (for example astronomical sky surveys), questionnaire studies, and papers about
peer review or code review are NOT literature surveys.

Title: %s

Abstract: %s

Answer with JSON only: {"survey": true or false, "reason": "<one sentence>"}`

// Classify asks the model.
func (c *LLMClassifier) Classify(ctx context.Context, p Paper) (SurveyDecision, error) {
	var out struct {
		Survey *bool  `json:"survey"`
		Reason string `json:"reason"`
	}
	prompt := fmt.Sprintf(classifyPrompt, p.Title, p.Abstract)
	if err := c.Completer.CompleteJSON(ctx, "build.classify", prompt, &out); err != nil {
		return SurveyDecision{}, fmt.Errorf("classify %s: %w", p.ID, err)
	}
	if out.Survey == nil {
		return SurveyDecision{}, fmt.Errorf("classify %s: model answer has no \"survey\" field", p.ID)
	}
	d := SurveyDecision{Survey: *out.Survey, By: "llm", Why: []string{strings.TrimSpace(out.Reason)}}
	if d.Survey {
		d.Score = 1
	}
	return d, nil
}
