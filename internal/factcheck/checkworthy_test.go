package factcheck

import (
	"strings"
	"testing"
)

func TestCheckWorthy(t *testing.T) {
	tests := []struct {
		claim  string
		want   bool
		reason string // substring of the reason
	}{
		// Specific, verifiable claims.
		{"The Tozzer Library holds over 260,000 volumes.", true, "number"},
		{"The couple married in New York in December 2012.", true, "date"},
		{"GDP grew 3.1% in 2019.", true, "number"},
		{"Kazuo Ishiguro won the Nobel Prize in Literature.", true, "named entity"},
		{"Transformers outperform recurrent networks on long sequences.", true, "comparison"},
		{"It is the largest freshwater lake by volume.", true, "comparison"},
		{"According to the survey, most teams use continuous integration.", true, "attribution"},
		{"- The WHO declared a pandemic on 11 March 2020.", true, "date"},
		{"According to the IMF, growth could reach 3% next year.", true, "attribution"},
		{"Use of antibiotics rose by 12% between 2000 and 2015.", true, "number"},
		{"北京是中国的首都，人口超过2100万。", true, "number"},

		// Not check-worthy.
		{"", false, "empty"},
		{"## Market Overview", false, "heading"},
		{"Key Findings and Recommendations", false, "heading"},
		{"The main results are:", false, "lead-in"},
		{"What drives the adoption of electric vehicles?", false, "question"},
		{"Researchers should validate these models on external data.", false, "recommendation"},
		{"Consider using a managed database for small teams.", false, "recommendation"},
		{"Ensure that the plasma is frozen within 8 hours.", false, "recommendation"},
		{"I think the 2020 policy was a mistake.", false, "opinion"},
		{"In our view, Rust is a better language than C++.", false, "opinion"},
		{"This is a remarkable achievement for Google.", false, "opinion"},
		{"The market may reach $5 billion by 2030.", false, "hedged"},
		{"These results could potentially change the field.", false, "hedged"},
		{"Data quality matters for model performance.", false, "no specific"},
		{"Many factors influence the outcome.", false, "no specific"},
		{"Short one.", false, "too short"},
	}
	for _, tt := range tests {
		got, reason := CheckWorthy(tt.claim)
		if got != tt.want || !strings.Contains(reason, tt.reason) {
			t.Errorf("CheckWorthy(%q) = %v, %q; want %v with reason containing %q", tt.claim, got, reason, tt.want, tt.reason)
		}
	}
}

func TestHasPhrase(t *testing.T) {
	tests := []struct {
		text, phrase string
		want         bool
	}{
		{"the team may win", "may", true},
		{"dismay spread", "may", false},
		{"it was said that", "said", true},
		{"more than half", "more than", true},
		{"furthermore than", "more than", false},
	}
	for _, tt := range tests {
		if got := hasPhrase(tt.text, tt.phrase); got != tt.want {
			t.Errorf("hasPhrase(%q, %q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
}

func FuzzCheckWorthy(f *testing.F) {
	for _, s := range []string{
		"The couple married in New York in December 2012.",
		"## Market Overview",
		"According to the IMF, growth could reach 3% next year [4].",
		"北京是中国的首都，人口超过2100万。",
		"May 5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, claim string) {
		ok, reason := CheckWorthy(claim)
		if reason == "" {
			t.Fatalf("CheckWorthy(%q) = %v with an empty reason", claim, ok)
		}
		if ok != strings.HasPrefix(reason, "specific: ") {
			t.Fatalf("CheckWorthy(%q) = %v, %q: verdict and reason disagree", claim, ok, reason)
		}
	})
}
