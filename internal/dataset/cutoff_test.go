package dataset

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestParseCutoff reads cutoff clauses as prompts write them: the
// ReportBench v1.1 phrasings and others people use.
func TestParseCutoff(t *testing.T) {
	tests := []struct {
		prompt    string
		bound     time.Time // zero: no cutoff
		inclusive bool
		precision Precision
	}{
		// Exclusive: the named period is not allowed.
		{"ensure only papers published before April 2025 are referenced", date(2025, 4, 1), false, PrecisionMonth},
		{"with human-vehicle interactions prior to August 2023.", date(2023, 8, 1), false, PrecisionMonth},
		{"must be publicly available before **October 2024**.", date(2024, 10, 1), false, PrecisionMonth},
		{"cite papers written before [December 2021], with an emphasis", date(2021, 12, 1), false, PrecisionMonth},
		{"Only refer to papers earlier than 2022.", date(2022, 1, 1), false, PrecisionYear},
		{"papers before 2022 only", date(2022, 1, 1), false, PrecisionYear},
		{"only studies published prior to 1 March 2024 may be cited", date(2024, 3, 1), false, PrecisionDay},
		{"published before March 31, 2024.", date(2024, 3, 31), false, PrecisionDay},
		{"published before Sept. 15th, 2023", date(2023, 9, 15), false, PrecisionDay},
		{"published before 2024-03-15", date(2024, 3, 15), false, PrecisionDay},
		{"published before 2024-03.", date(2024, 3, 1), false, PrecisionMonth},
		{"available before the 3rd of June 2022", date(2022, 6, 3), false, PrecisionDay},
		{"published before the start of 2020", date(2020, 1, 1), false, PrecisionYear},
		// Inclusive: the named period is allowed.
		{"all cited research results must have been published on or before May 2021", date(2021, 6, 1), true, PrecisionMonth},
		{"Cutoff Date: All cited literature must have been published on or before August 2022", date(2022, 9, 1), true, PrecisionMonth},
		{"works that appeared in or before 2023", date(2024, 1, 1), true, PrecisionYear},
		{"published no later than June 2023.", date(2023, 7, 1), true, PrecisionMonth},
		{"All sources must be not later than December 2020.", date(2021, 1, 1), true, PrecisionMonth},
		{"Use literature up to and including June 2023.", date(2023, 7, 1), true, PrecisionMonth},
		{"papers published not after June 2023", date(2023, 7, 1), true, PrecisionMonth},
		{"Summarise the state of the art as of March 2024.", date(2024, 4, 1), true, PrecisionMonth},
		{"papers up to May 2023", date(2023, 6, 1), true, PrecisionMonth},
		{"research until 2022", date(2023, 1, 1), true, PrecisionYear},
		{"literature through 2021", date(2022, 1, 1), true, PrecisionYear},
		{"only papers published by March 31, 2024", date(2024, 4, 1), true, PrecisionDay},
		{"as of 31 December 2023", date(2024, 1, 1), true, PrecisionDay},
		{"published before the end of 2023", date(2024, 1, 1), true, PrecisionYear},
		{"published before the end of June 2023", date(2023, 7, 1), true, PrecisionMonth},
		{"only papers published in 2023 or earlier", date(2024, 1, 1), true, PrecisionYear},
		{"work from May 2022 or before", date(2022, 6, 1), true, PrecisionMonth},
		{"review work published between 2018 and 2023", date(2024, 1, 1), true, PrecisionYear},
		{"studies published from May 2020 to June 2023 only", date(2023, 7, 1), true, PrecisionMonth},
		{"papers published from 2023 to 2019", time.Time{}, false, 0},
		{"trace the field between 2019 and 2021. Cite papers published before 2024.", date(2024, 1, 1), false, PrecisionYear},
		// The first explicit cutoff wins.
		{"papers published before April 2024; discuss the market forecast by 2030 and growth until 2035.", date(2024, 4, 1), false, PrecisionMonth},
		{"Focus on models since 2019. Cite papers published no later than April 2025.", date(2025, 5, 1), true, PrecisionMonth},
		{"Use sources on or before May 2021. Note: the survey appeared before July 2021.", date(2021, 6, 1), true, PrecisionMonth},
		// Not cutoffs.
		{"Estimate adoption by 2030.", time.Time{}, false, 0},
		{"published after 2020 and since 2019", time.Time{}, false, 0},
		{"before diving in, read 20 papers", time.Time{}, false, 0},
		{"before May", time.Time{}, false, 0},
		{"before February 30, 2024", time.Time{}, false, 0},
		{"before 2024-13-01", time.Time{}, false, 0},
		{"through 2020s trends", time.Time{}, false, 0},
		{"up to 3000 papers", time.Time{}, false, 0},
	}
	for _, tt := range tests {
		c, ok := ParseCutoff(tt.prompt)
		if tt.bound.IsZero() {
			if ok {
				t.Errorf("ParseCutoff(%q) = %+v, want none", tt.prompt, c)
			}
			continue
		}
		if !ok {
			t.Errorf("ParseCutoff(%q) found none, want bound %v", tt.prompt, tt.bound.Format(time.DateOnly))
			continue
		}
		got := struct {
			Bound     string
			Inclusive bool
			Precision Precision
		}{c.Bound().Format(time.DateOnly), c.Inclusive, c.Precision}
		want := struct {
			Bound     string
			Inclusive bool
			Precision Precision
		}{tt.bound.Format(time.DateOnly), tt.inclusive, tt.precision}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ParseCutoff(%q) %q (-want +got):\n%s", tt.prompt, c.Text, diff)
		}
	}
}

// TestCutoffBoundMonth: a work dated in the cutoff month is post-cutoff
// under "before May 2021" and allowed under "on or before May 2021".
func TestCutoffBoundMonth(t *testing.T) {
	may := date(2021, 5, 20)
	for _, tt := range []struct {
		prompt string
		post   bool
	}{
		{"published before May 2021", true},
		{"published on or before May 2021", false},
		{"published prior to 20 May 2021", true},
		{"published by 20 May 2021", false},
		{"published before 2021", true},
		{"published in or before 2021", false},
	} {
		c, ok := ParseCutoff(tt.prompt)
		if !ok {
			t.Fatalf("ParseCutoff(%q) found none", tt.prompt)
		}
		if post := !may.Before(c.Bound()); post != tt.post {
			t.Errorf("%q: a work of %s post-cutoff = %v, want %v", tt.prompt, may.Format(time.DateOnly), post, tt.post)
		}
	}
}

func FuzzParseCutoff(f *testing.F) {
	for _, s := range []string{
		"published on or before May 2021", "prior to 1 March 2024", "by March 31, 2024", "in 2023 or earlier",
		"before the end of **2023**", "before [2024-02-29]", "as of 31st of December, 2023", "before 2024-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseCutoff(s)
		if !ok {
			return
		}
		if c.Precision < PrecisionYear || c.Precision > PrecisionDay || c.Date.Year() < 1900 || c.Date.Year() > 2099 {
			t.Fatalf("ParseCutoff(%q) = %+v", s, c)
		}
		if b := c.Bound(); b.Before(c.Date) || c.Inclusive == b.Equal(c.Date) {
			t.Fatalf("ParseCutoff(%q): bound %v for %+v", s, b, c)
		}
	})
}
