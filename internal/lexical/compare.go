package lexical

import (
	"math"
	"slices"
)

// Factor returns q as the ratio of a new level to an old one, with its
// tolerance: a factor ("tripled", "3x", "threefold" → 3), or a percentage
// change ("rose 50%" → 1.5, "cut by half" → 0.5). ok is false for a level.
func (q Quantity) Factor() (f, tol float64, ok bool) {
	switch {
	case q.Dim == DimFactor:
		return q.Base, q.BaseTol, true
	case q.Unit == "%" && q.Change != 0:
		return 1 + float64(q.Change)*q.Value/100, q.Tol / 100, true
	}
	return 0, 0, false
}

// Agree reports whether e states q: the same value within q's tolerance
// (either's where the units differ, to allow for the rounding of a
// conversion), in any unit of q's dimension ("2.5 km" / "2,500 metres",
// "50 ms" / "0.05 seconds", "15 GW" / "15,000 MW"), a percentage as a
// fraction ("40%" / "0.4") or as a proportion ("one in four" / "25%"), a
// change as a factor ("doubled" / "rose by 100%"), overlapping dates
// ("March 2021" / "2021-03-15"). Quantities of two dimensions never
// agree ("six months" / "six weeks"); otherwise the same number agrees
// whatever its unit.
func Agree(q, e Quantity) bool {
	if fq, tq, ok := q.Factor(); ok {
		if fe, te, ok := e.Factor(); ok {
			return math.Abs(fq-fe) <= math.Max(tq, te)+1e-9
		}
		if q.Dim == DimFactor || e.Dim != "" {
			return false
		}
	}
	if q.Dim != "" && e.Dim != "" {
		if q.Dim != e.Dim {
			return false
		}
		if q.Dim == DimDate {
			return math.Abs(q.Base-e.Base) < q.BaseTol+e.BaseTol-1e-9
		}
		tol := q.BaseTol
		if q.Unit != e.Unit {
			tol = math.Max(q.BaseTol, e.BaseTol)
		}
		return math.Abs(q.Base-e.Base) <= tol+1e-9*math.Max(1, math.Abs(q.Base))
	}
	if q.Dim == DimDate || e.Dim == DimDate || q.Dim == DimFactor || e.Dim == DimFactor {
		return false
	}
	// The same number in another unit, or in one only of the two with a
	// dimension, is stated: the counted word is as often a synonym ("57
	// years" / "age 57 due to").
	if math.Abs(q.Value-e.Value) <= q.Tol+1e-9*math.Max(1, math.Abs(q.Value)) {
		return true
	}
	// A percentage written as a fraction, either way round.
	if q.Unit == "%" && e.Unit != "%" && e.Value > 0 && e.Value < 1 && math.Abs(q.Value-100*e.Value) <= math.Max(q.Tol, 0.5) {
		return true
	}
	return e.Unit == "%" && q.Unit != "%" && q.Value > 0 && q.Value < 1 && math.Abs(100*q.Value-e.Value) <= math.Max(e.Tol, 0.5)
}

// StatedIn reports whether ev states q (Agree), or, with ranges, holds a
// range q lies in ("6 to 11", "20%–35%", "between 6 and 11"): ev as
// Quantities returns them, the low end of a range right before its high
// end.
func StatedIn(q Quantity, ev []Quantity, ranges bool) bool {
	for k, e := range ev {
		if Agree(q, e) {
			return true
		}
		if ranges && e.RangeTo && k+1 < len(ev) && ev[k+1].Tok > e.Tok && q.Dim == "" {
			hi := ev[k+1]
			if (hi.Unit == q.Unit || q.Unit == "" || hi.Unit == "") && q.Value >= e.Value-q.Tol && q.Value <= hi.Value+q.Tol && e.Value < hi.Value {
				return true
			}
		}
		if ranges && e.RangeTo && k+1 < len(ev) && q.Dim != "" && q.Dim == ev[k+1].Dim && q.Dim != DimFactor {
			lo, hi := e.Base, ev[k+1].Base
			if e.Dim == "" { // "10 to 20 ms": the low end takes the high end's unit
				lo = e.Value * ev[k+1].Base / ev[k+1].Value
			}
			if lo < hi && q.Base >= lo-q.BaseTol && q.Base <= hi+q.BaseTol {
				return true
			}
		}
	}
	return false
}

// SameKind reports whether q and e measure the same kind of thing, so
// that two values that do not agree contradict: one dimension ("six
// months" / "six weeks", "120 km" / "120 miles"), two changes, the same
// unit, a percentage and a fraction, the same scale word ("1.4 million" /
// "1.9 million"), a second unit word ("12 transformer layers" / "24
// layers"), or two bare numbers after the same word ("a batch size of
// 32"). Years, dates and percentages are too common to be one quantity by
// their unit alone: the words before them must meet too ("opened in
// 1933" / "opened to traffic in 1937").
func SameKind(q, e Quantity) bool {
	_, _, fq := q.Factor()
	_, _, fe := e.Factor()
	switch {
	case fq && fe:
		return true
	case q.Dim == DimFactor || e.Dim == DimFactor:
		return false // a factor and a level
	case q.Dim != "" || e.Dim != "":
		if q.Dim != e.Dim {
			return false
		}
		return q.Dim != DimDate || len(q.Lead) > 0 && len(e.Lead) > 0 && meet(q.Lead, e.Lead)
	case q.Unit != "" && q.Unit == e.Unit && (q.Unit == UnitYear || q.Unit == "%") && len(q.Lead) > 0 && len(e.Lead) > 0:
		return meet(q.Lead, e.Lead)
	case q.Unit != "" && q.Unit == e.Unit && IsSymbolUnit(q.Unit) && len(q.Lead) > 0 && len(e.Lead) > 0:
		// Sums of money: the word nearest before one is among the words
		// before the other ("revenue was $2.4 billion" / "revenue of $4.2
		// billion"; not "valued at $400m" / "raised $50m").
		return slices.Contains(e.Lead, q.Lead[0]) || slices.Contains(q.Lead, e.Lead[0])
	case q.Unit != "" && q.Unit == e.Unit:
		return true
	case q.Unit != "" && slices.Contains(e.Lead, q.Unit) && !IsSymbolUnit(q.Unit) && e.Unit == "",
		e.Unit != "" && slices.Contains(q.Lead, e.Unit) && !IsSymbolUnit(e.Unit) && q.Unit == "":
		// The counted word after one number and before the other: "15
		// million users" / "its user base reached 1.5 million".
		return true
	case q.Unit != "" && e.Unit != "" && !IsSymbolUnit(q.Unit) && !IsSymbolUnit(e.Unit) && q.Unit != UnitYear && e.Unit != UnitYear &&
		len(q.Lead) > 0 && len(e.Lead) > 0 && q.Lead[0] == e.Lead[0]:
		// Two counts after the same word: "enrolled 43,000 participants" /
		// "enrolled 4,300 people".
		return true
	case q.Unit2 != "" && (q.Unit2 == e.Unit || q.Unit2 == e.Unit2):
		return true
	case e.Unit2 != "" && e.Unit2 == q.Unit:
		return true
	case q.Unit == "%" && e.Unit == "" && e.Value > 0 && e.Value < 1:
		return true
	case q.Unit == "" && e.Unit == "" && q.Scale != "" && q.Scale == e.Scale:
		return true
	case q.Unit == "" && e.Unit == "" && meet(q.Lead, e.Lead):
		return true
	}
	return false
}

func meet(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
