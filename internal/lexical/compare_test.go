package lexical

import (
	"strings"
	"testing"
)

// readOne returns the quantities of text.
func readOne(text string) []Quantity { return Quantities(text, Tokenize(text)) }

// TestAgree: a claim's quantities are stated by evidence that writes them
// in another form. The pairs are written for this test, in the forms
// reports and their sources use.
func TestAgree(t *testing.T) {
	for _, tc := range [][2]string{
		{"reached 1.2 million households", "reached 1,200,000 households"},
		{"12k downloads", "12,000 downloads"},
		{"revenue of $3.4bn", "revenue of 3.4 billion dollars"},
		{"twelve laboratories", "12 laboratories"},
		{"a dozen laboratories", "12 laboratories"},
		{"a latency of 0.05 seconds", "a latency of 50 milliseconds"},
		{"a tunnel 2.5 kilometres long", "a tunnel 2,500 metres long"},
		{"a robot 5 ft tall", "a robot 1.5 m tall"},
		{"a wall raised by 80 cm", "a wall raised by 0.8 metres"},
		{"opened in March 2021", "opened in 2021-03"},
		{"opened in March 2021", "opened on 03/2021"},
		{"opened on 15 March 2021", "opened in March 2021"},
		{"opened on March 15, 2021", "opened on 2021-03-15"},
		{"peaked in Q3 2022", "peaked in the third quarter of 2022"},
		{"in H1 2023", "in the first half of 2023"},
		{"half of the hospitals", "50% of the hospitals"},
		{"one in four adults", "25% of adults"},
		{"7 out of 10 cars", "70% of cars"},
		{"two out of every five dollars", "40% of revenue"},
		{"two-thirds of respondents", "67% of respondents"},
		{"a fifth of species", "20% of species"},
		{"capacity grew threefold", "capacity tripled"},
		{"sales doubled", "sales rose by 100%"},
		{"latency was halved", "latency fell by 50%"},
		{"a 3x speed-up", "a threefold speed-up"},
		{"three times as many cases", "a threefold rise in cases"},
		{"grew tenfold", "rose by an order of magnitude"},
		{"averaged 30 °C", "averaged 86 °F"},
		{"15 GW of capacity", "15,000 MW of capacity"},
		{"raised by 75 basis points", "raised by 0.75 percentage points"},
		{"runs at 400 Hz", "runs 400 times per second"},
		{"2.3 Gt of CO2", "2.3 gigatonnes of CO2"},
		{"about 40% of cases", "0.4 of cases"},
		{"climbed from 12,000 to 36,000", "tripled"},
	} {
		claim, ev := readOne(tc[0]), readOne(tc[1])
		if len(claim) == 0 {
			t.Errorf("%q: no quantity read", tc[0])
			continue
		}
		// The claim's factor, date or converted quantity must be stated;
		// its other numbers may be parts of it.
		if !stated(claim, ev) {
			t.Errorf("%q (%s) not stated by %q (%s)", tc[0], show(claim), tc[1], show(ev))
		}
	}
}

// stated reports whether the most specific of the claim's quantities
// (a factor, a date, a proportion, a converted unit, else any) is stated.
func stated(claim, ev []Quantity) bool {
	best := claim[0]
	for _, q := range claim {
		if q.Dim != "" || q.Unit == "%" {
			best = q
		}
	}
	return StatedIn(best, ev, true)
}

func show(qs []Quantity) string {
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(q.Lit + "=" + q.Unit + ":" + q.Dim + " ")
	}
	return b.String()
}

// TestDisagree: the same kind of quantity with another value, as a
// contradiction states it.
func TestDisagree(t *testing.T) {
	for _, tc := range [][2]string{
		{"treated for six months", "treated for six weeks"},
		{"a pipeline 120 km long", "a pipeline 120 miles long"},
		{"given 50 µg of vitamin K", "given 50 mg of vitamin K"},
		{"subscriptions doubled", "subscriptions tripled"},
		{"enrolment rose 50%", "enrolment halved"},
		{"1.5 million users", "15 million users"},
		{"began in March 2021", "began in May 2021"},
		{"averaged 30 °C", "averaged 30 °F"},
		{"rose from 12,000 to 36,000", "doubled"},
		{"one in four adults", "40% of adults"},
	} {
		a, b := readOne(tc[0]), readOne(tc[1])
		if len(a) == 0 || len(b) == 0 {
			t.Errorf("%q / %q: %s / %s", tc[0], tc[1], show(a), show(b))
			continue
		}
		q := a[len(a)-1]
		for _, x := range a {
			if x.Dim != "" || x.Unit == "%" {
				q = x
			}
		}
		if StatedIn(q, b, true) {
			t.Errorf("%q stated by %q", tc[0], tc[1])
		}
		kind := false
		for _, e := range b {
			kind = kind || SameKind(q, e)
		}
		if !kind {
			t.Errorf("%q (%s) and %q (%s): no quantity of the same kind", tc[0], show(a), tc[1], show(b))
		}
	}
	// Two dimensions are never one kind.
	for _, tc := range [][2]string{{"6 months", "6 km"}, {"30 °C", "30 kg"}, {"tripled", "3 km"}, {"March 2021", "3 metres"}} {
		a, b := readOne(tc[0]), readOne(tc[1])
		for _, q := range a {
			for _, e := range b {
				if q.Dim != "" && SameKind(q, e) {
					t.Errorf("%q and %q: same kind", tc[0], tc[1])
				}
			}
		}
	}
}

// TestReadDates reads the common forms of a date as a span of days.
func TestReadDates(t *testing.T) {
	day := func(y, m, d int) float64 { return float64(dayNumber(y, m, d)) }
	for _, tc := range []struct {
		text     string
		lit      string
		from, to float64 // the span's first day and the day after its last
	}{
		{"in March 2021 the", "March 2021", day(2021, 3, 1), day(2021, 4, 1)},
		{"on 15 March 2021", "15 March 2021", day(2021, 3, 15), day(2021, 3, 16)},
		{"on March 15, 2021,", "March 15, 2021", day(2021, 3, 15), day(2021, 3, 16)},
		{"on 15th March 2021", "15th March 2021", day(2021, 3, 15), day(2021, 3, 16)},
		{"from 2021-03", "2021-03", day(2021, 3, 1), day(2021, 4, 1)},
		{"on 2021-03-15", "2021-03-15", day(2021, 3, 15), day(2021, 3, 16)},
		{"on 15/03/2021", "15/03/2021", day(2021, 3, 15), day(2021, 3, 16)},
		{"on 03/15/2021", "03/15/2021", day(2021, 3, 15), day(2021, 3, 16)},
		{"in 03/2021", "03/2021", day(2021, 3, 1), day(2021, 4, 1)},
		{"in Q3 2022", "Q3 2022", day(2022, 7, 1), day(2022, 10, 1)},
		{"the third quarter of 2022", "third quarter of 2022", day(2022, 7, 1), day(2022, 10, 1)},
		{"in H2 2023", "H2 2023", day(2023, 7, 1), day(2023, 12+1, 1)},
		{"in May of 2020", "May of 2020", day(2020, 5, 1), day(2020, 6, 1)},
		{"in Sept. 2019", "Sept. 2019", day(2019, 9, 1), day(2019, 10, 1)},
	} {
		var got *Quantity
		qs := readOne(tc.text)
		for i := range qs {
			if qs[i].Dim == DimDate {
				got = &qs[i]
			}
		}
		if got == nil {
			t.Errorf("%q: no date read (%s)", tc.text, show(qs))
			continue
		}
		from, to := got.Base-got.BaseTol+0.5, got.Base+got.BaseTol+0.5
		if got.Lit != tc.lit || from != tc.from || to != tc.to {
			t.Errorf("%q: %q [%v, %v), want %q [%v, %v)", tc.text, got.Lit, from, to, tc.lit, tc.from, tc.to)
		}
	}
	// Not dates: a span of years, an unknown day order, a modal verb, a
	// version.
	for _, text := range []string{"in 2018-19", "on 03/04/2021", "they may 2021 times", "version 2.1.3", "the 1990s"} {
		for _, q := range readOne(text) {
			if q.Dim == DimDate {
				t.Errorf("%q: read date %q", text, q.Lit)
			}
		}
	}
}

// TestNotProportions: ordinals, parts of a period and compounds are not
// fractions.
func TestNotProportions(t *testing.T) {
	for _, text := range []string{"the first half of the season", "the third quarter", "its half-life", "the two halves", "ranked 5 in 2021", "the third trial"} {
		for _, q := range readOne(text) {
			if q.Unit == "%" {
				t.Errorf("%q: read %q as %v%%", text, q.Lit, q.Value)
			}
		}
	}
}

// TestChange reads whether a percentage is a change, and which way.
func TestChange(t *testing.T) {
	for text, want := range map[string]int{
		"sales rose 5% in May":        1,
		"sales fell by about 5%":      -1,
		"a 5% increase in sales":      1,
		"costs were 5% lower":         -1,
		"sales rose to 5% of revenue": 0,
		"a share of 5% of revenue":    0,
		"cut by half":                 -1,
	} {
		qs := readOne(text)
		if len(qs) == 0 || qs[0].Change != want {
			t.Errorf("%q: %+v, want change %d", text, qs, want)
		}
	}
}

// TestAsserted: conditionals, hypotheses and possibilities are not
// assertions; "could not", "May 2023" and plain statements are.
func TestAsserted(t *testing.T) {
	for text, want := range map[string]bool{
		"If the ice sheet melted entirely, sea level would rise by about 7 m.": false,
		"Were the dam to fail, the valley would flood.":                        false,
		"Sea level would rise unless emissions fall.":                          false,
		"The supplement may reduce migraine attacks by up to 30%.":             false,
		"Prices might fall next year.":                                         false,
		"In the event of a breach, the firm notifies users.":                   false,
		"Participants could not distinguish the voices.":                       true,
		"The licence was granted in May 2023.":                                 true,
		"Sea level rose 3.3 mm per year over 1993–2020.":                       true,
	} {
		if got := Asserted(text, Tokenize(text)); got != want {
			t.Errorf("Asserted(%q) = %v, want %v", text, got, want)
		}
	}
}
