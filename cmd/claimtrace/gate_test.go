package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// TestRunGate calls the gate without cobra: the verdict and one line per
// threshold on stdout, exit status 1 when one fails, 2 when the input
// cannot be audited.
func TestRunGate(t *testing.T) {
	half := 0.5
	tests := []struct {
		name string
		path string
		gate prov.Gate
		code int
		want string
	}{
		{"pass", transparent, prov.Gate{MinPCov: 0.9, MinPSnd: 0.9}, 0,
			"gate PASS: figure4-transparent\n  ok    PCov  1.000 ≥ 0.90\n  ok    PSnd  1.000 ≥ 0.90\n"},
		{"fail", blackBox, prov.Gate{MinPCov: 0.3, MinPSnd: 0.5, MinCTran: &half}, 1,
			"gate FAIL: figure4-black-box\n  ok    PCov  0.333 ≥ 0.30\n" +
				"  FAIL  PSnd  0.250 < 0.50: 3 of 4 citation pairs have ν ≤ 0.50 or no strength\n" +
				"  FAIL  CTran 0.000 < 0.50: 2 of 2 conflicts between sources are hidden: s1 ↔ s3 about \"answer accuracy\", s2 ↔ s4 about \"model sizes\"\n"},
		{"no input", "nosuch.json", prov.Gate{}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			a := &app{stdout: &out}
			err := a.runGate(context.Background(), tt.path, auditOptions{Tau: prov.DefaultTau, Detect: true}, tt.gate)
			code := 0
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			} else if err != nil {
				t.Fatalf("runGate: %v, want an exitError", err)
			}
			if code != tt.code {
				t.Errorf("exit %d (%v), want %d", code, err, tt.code)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGateFlags(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	if _, err := gateFlags(given("min-pcov"), 0.5, 0, 0); err == nil {
		t.Error("no --min-psnd: no error")
	}
	if _, err := gateFlags(given("min-pcov", "min-psnd", "min-ctran"), 0.5, 0.5, 2); err == nil {
		t.Error("--min-ctran 2: no error")
	}
	g, err := gateFlags(given("min-pcov", "min-psnd"), 0.5, 0.6, 0.7)
	if err != nil || g.MinPCov != 0.5 || g.MinPSnd != 0.6 || g.MinCTran != nil {
		t.Errorf("gateFlags = %+v, %v; want PCov 0.5, PSnd 0.6, no CTran", g, err)
	}
	g, err = gateFlags(given("min-pcov", "min-psnd", "min-ctran"), 0.5, 0.6, 0)
	if err != nil || g.MinCTran == nil || *g.MinCTran != 0 {
		t.Errorf("gateFlags with --min-ctran 0 = %+v, %v; want CTran 0", g, err)
	}
}
