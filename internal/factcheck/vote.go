package factcheck

import "github.com/claimtrace/claimtrace"

// Aggregate decides a non-cited claim from fact-checker votes. A vote with
// an error, or with a label other than true or false, is not a vote: it is
// kept in Votes for the record but not counted. The majority of the valid
// votes decides and Confidence is the winning share; a tie, or no valid
// vote at all, is undecided (confidence 0.5 for a tie, 0 without votes).
func Aggregate(votes []claimtrace.Vote) claimtrace.Fact {
	var yes, no int
	for _, v := range votes {
		if v.Err != "" {
			continue
		}
		switch v.Label {
		case claimtrace.FactTrue:
			yes++
		case claimtrace.FactFalse:
			no++
		}
	}
	f := claimtrace.Fact{Votes: append([]claimtrace.Vote{}, votes...)}
	valid := yes + no
	switch {
	case valid == 0:
		f.Label, f.Confidence = claimtrace.FactUndecided, 0
	case yes == no:
		f.Label, f.Confidence = claimtrace.FactUndecided, 0.5
	case yes > no:
		f.Label, f.Confidence = claimtrace.FactTrue, float64(yes)/float64(valid)
	default:
		f.Label, f.Confidence = claimtrace.FactFalse, float64(no)/float64(valid)
	}
	return f
}
