package main

import (
	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// verifyFlags choose how cited claims are verified and how provenance is
// scored, for eval and demo.
type verifyFlags struct {
	judge          string
	calibration    string
	tau            float64
	partialWeight  float64
	contradictions bool
}

func (v *verifyFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&v.judge, "judge", "offline", "cited-statement judge: offline (lexical, calibrated, no network) or none")
	fs.StringVar(&v.calibration, "calibration", "", "offline judge calibration file (default: the fitted one built in; see `judge calibrate`)")
	fs.Float64Var(&v.tau, "tau", prov.DefaultTau, "PSnd threshold τ: a citation is sound when its strength ν > τ")
	fs.Float64Var(&v.partialWeight, "partial-weight", 0.5, "what a partial verdict counts in the match rate")
	fs.BoolVar(&v.contradictions, "contradictions", true, "look for contradictions between the sources each report read (CTran)")
}

func defaultVerify() verifyFlags {
	return verifyFlags{judge: "offline", tau: prov.DefaultTau, partialWeight: 0.5, contradictions: true}
}

// apply sets the verification options of an evaluation.
func (v verifyFlags) apply(o *eval.Options) error {
	o.Tau, o.PartialWeight = v.tau, v.partialWeight
	o.CheckWorthy = judge.CheckWorthy
	if v.contradictions {
		o.Detector = prov.Offline{}
	}
	if v.judge == "none" {
		return nil
	}
	j, _, err := newJudge(v.judge, v.calibration)
	if err != nil {
		return err
	}
	o.Judge, o.JudgeName = j, v.judge
	if v.calibration != "" {
		o.JudgeName += "+" + v.calibration
	}
	return nil
}
