package judge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// testCalibration is fixed here so that the label tests do not move when
// the shipped calibration is refitted.
func testCalibration() Calibration {
	return Calibration{
		Version:         CalibrationVersion,
		Supported:       0.7,
		Partial:         0.4,
		Contradiction:   0.6,
		Window:          3,
		Weights:         Weights{Coverage: 1, Bigram: 0.5, Entity: 0.5},
		NumberPenalty:   0.5,
		NegationPenalty: 0.5,
		MinSourceTerms:  2,
	}
}

const library = `Skip to content
# Tozzer Library
The Tozzer Library is part of the Harvard Library system. It began as the library of the Peabody Museum in 1866.
Today the collection holds more than 260,000 volumes on anthropology and archaeology.
The museum is open on Mondays. Sales of the guidebook increased by 5% in 2020.
Photography is allowed in the reading room.`

func TestOfflineVerdicts(t *testing.T) {
	j, err := NewOffline(testCalibration())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, claim, source string
		label               claimtrace.Label
		evidence            string // substring the evidence must contain
		reason              string // substring the reason must contain
	}{
		{"supported", "The Tozzer Library holds over 260,000 volumes.", library, claimtrace.Supported, "260,000 volumes", "numbers"},
		{"citation marker ignored", "The Tozzer Library holds over 260,000 volumes [12].", library, claimtrace.Supported, "260,000 volumes", "1/1 numbers"},
		{"unrelated", "The building was designed by Frank Gehry for the city of Bilbao.", library, claimtrace.Unsupported, "", ""},
		{"partly covered", "The Tozzer Library began as the library of the Peabody Museum and was funded by a Boston shipping magnate.", library, claimtrace.Partial, "Peabody Museum", ""},
		{"number conflict", "The Tozzer Library collection holds 120,000 volumes.", library, claimtrace.Contradicted, "260,000", "number conflict 120,000 vs 260,000"},
		{"year conflict", "The Tozzer Library began as the library of the Peabody Museum in 1901.", library, claimtrace.Contradicted, "1866", "number conflict 1901 vs 1866"},
		{"negation", "The museum is not open on Mondays.", library, claimtrace.Contradicted, "open on Mondays", "negation mismatch"},
		{"antonym", "Sales of the guidebook decreased by 5% in 2020.", library, claimtrace.Contradicted, "increased", "direction conflict decreas/increas"},
		{"empty source", "The Tozzer Library holds over 260,000 volumes.", "", claimtrace.Unknown, "", "source too short"},
		{"stub source", "The Tozzer Library holds over 260,000 volumes.", "Loading…", claimtrace.Unknown, "", "source too short"},
		{"claim without words", "[3]", library, claimtrace.Unknown, "", "no content words"},
		{"CJK supported", "北京是中国的首都", "北京是中国的首都。上海是中国最大的城市。", claimtrace.Supported, "北京是中国的首都", ""},
		{"CJK unsupported", "东京是日本的首都", "北京是中国的首都。上海是中国最大的城市。", claimtrace.Unsupported, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := j.Judge(context.Background(), tt.claim, tt.source)
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != tt.label {
				t.Errorf("label = %s, want %s (strength %.2f, reason %q)", v.Label, tt.label, v.Strength, v.Reason)
			}
			if !strings.Contains(tt.source, v.Evidence) {
				t.Errorf("evidence %q is not a substring of the source", v.Evidence)
			}
			if !strings.Contains(v.Evidence, tt.evidence) {
				t.Errorf("evidence %q does not contain %q", v.Evidence, tt.evidence)
			}
			if !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", v.Reason, tt.reason)
			}
			if v.Strength < 0 || v.Strength > 1 {
				t.Errorf("strength %v outside [0,1]", v.Strength)
			}
			if (v.Label == claimtrace.Contradicted || v.Label == claimtrace.Unknown) && v.Strength != 0 {
				t.Errorf("%s verdict has strength %v, want 0", v.Label, v.Strength)
			}
			if v.Judge != OfflineName {
				t.Errorf("judge = %q, want %q", v.Judge, OfflineName)
			}
		})
	}
}

// TestPenaltiesLowerTheScore checks the direction of each cue with the
// penalties on and off, independent of the thresholds.
func TestPenaltiesLowerTheScore(t *testing.T) {
	base := testCalibration()
	base.Contradiction = 2 // never contradicted: compare scores
	off := base
	off.NumberPenalty, off.NegationPenalty = 0, 0
	tests := []struct{ name, claim string }{
		{"missing number", "The Tozzer Library collection holds 120,000 volumes."},
		{"negation", "The museum is not open on Mondays."},
		{"antonym", "Sales of the guidebook decreased by 5% in 2020."},
	}
	for _, tt := range tests {
		on, err := NewOffline(base)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := NewOffline(off)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := on.Judge(context.Background(), tt.claim, library)
		b, _ := plain.Judge(context.Background(), tt.claim, library)
		if a.Strength >= b.Strength {
			t.Errorf("%s: strength with penalty %.3f, without %.3f; want lower with", tt.name, a.Strength, b.Strength)
		}
	}
}

func TestJudgeSourceBatchMatchesSingle(t *testing.T) {
	j, err := NewOffline(testCalibration())
	if err != nil {
		t.Fatal(err)
	}
	claims := []string{
		"The Tozzer Library holds over 260,000 volumes.",
		"The museum is not open on Mondays.",
		"The building was designed by Frank Gehry.",
		"",
	}
	ctx := context.Background()
	batch, err := j.JudgeSource(ctx, library, claims)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != len(claims) {
		t.Fatalf("got %d verdicts for %d claims", len(batch), len(claims))
	}
	for i, c := range claims {
		single, err := j.Judge(ctx, c, library)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(single, batch[i]); diff != "" {
			t.Errorf("claim %d: batched verdict differs from single (-single +batch):\n%s", i, diff)
		}
	}
}

func TestJudgeSourceCanceled(t *testing.T) {
	j, err := NewOffline(testCalibration())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.JudgeSource(ctx, library, []string{"claim"}); !errors.Is(err, context.Canceled) {
		t.Errorf("JudgeSource on a canceled context: err = %v, want context.Canceled", err)
	}
}

func TestNewOfflineRejectsBadCalibration(t *testing.T) {
	cal := testCalibration()
	cal.Partial = 0.9 // above Supported
	if _, err := NewOffline(cal); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("NewOffline with partial > supported: err = %v, want ErrInvalid", err)
	}
}

func TestEntities(t *testing.T) {
	tests := []struct {
		text string
		want [][]string
	}{
		{"Kazuo Ishiguro wrote the novel 'The Remains of the Day.'", [][]string{{"kazuo", "ishiguro"}, {"remain"}, {"day"}}},
		{"Parents may not be able to help.", nil},
		{"FFP units expire after 12 months.", [][]string{{"ffp"}}},
		{"In 2016, Apple and the WHO signed a deal.", [][]string{{"appl"}, {"who"}}},
		{"Pink sang at the Super Bowl.", [][]string{{"super", "bowl"}}},
	}
	for _, tt := range tests {
		got := entities(tt.text, passage.Tokenize(tt.text))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("entities(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestNegated(t *testing.T) {
	tests := map[string]bool{
		"The museum is open on Mondays.":                              false,
		"The museum is not open on Mondays.":                          true,
		"The museum isn't open.":                                      true,
		"The museum isn’t open.":                                      true,
		"Admission without a ticket.":                                 true,
		"No visitors are allowed.":                                    true,
		"Nothing else matters; notable works.":                        true,
		"A notable and noted knot.":                                   false,
		"Accuracy rose by 14% over the same model without retrieval.": false,
		"More side-effects than among those without known infection.": false,
		"The model works without external retrieval.":                 true,
		"Pesticides were classified not only by chemical class.":      false,
		"It is not unusual for runners to develop a bradycardia.":     false,
	}
	for text, want := range tests {
		if got := negated(text, passage.Tokenize(text)); got != want {
			t.Errorf("negated(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestCleanClaim(t *testing.T) {
	tests := map[string]string{
		"Sales rose 5% [3].":                          "Sales rose 5%  .",
		"Sales rose 5% [1, 2][4-6].":                  "Sales rose 5%   .",
		"Sales rose [[3]](https://x.org/a?b=1).":      "Sales rose  .",
		"See [the report](https://a.org) for more.":   "See the report for more.",
		"Data at https://example.org/x shows growth.": "Data at   shows growth.",
		"Footnoted claim[^2].":                        "Footnoted claim .",
	}
	for in, want := range tests {
		if got := cleanClaim(in); got != want {
			t.Errorf("cleanClaim(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzJudgeSource(f *testing.F) {
	f.Add(library, "The Tozzer Library holds over 260,000 volumes.")
	f.Add("北京是中国的首都。上海是中国最大的城市。", "北京是中国的首都")
	f.Add("Inflation rose to 4% in 2019.", "Inflation fell to 2% in 2019 [3].")
	f.Add("a\xffb. C d e f.", "b c")
	j, err := NewOffline(testCalibration())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, source, claim string) {
		vs, err := j.JudgeSource(context.Background(), source, []string{claim, claim + " " + claim})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if !strings.Contains(source, v.Evidence) {
				t.Fatalf("evidence %q not a substring of source %q", v.Evidence, source)
			}
			if v.Strength < 0 || v.Strength > 1 {
				t.Fatalf("strength %v outside [0,1]", v.Strength)
			}
			switch v.Label {
			case claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown:
			default:
				t.Fatalf("label %q", v.Label)
			}
		}
	})
}
