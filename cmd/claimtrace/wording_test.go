package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstUseWording: what a new user reads after one report — singular
// counts, a legend for the table's columns, an arXiv URL matched by its
// paper's DOI said so, and no bootstrap interval from one report.
func TestFirstUseWording(t *testing.T) {
	dir := t.TempDir()
	if err := demoMaterialize(dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, errOut, code := cli(t, "eval", "--dataset", filepath.Join(dir, "dataset"), "--reports", filepath.Join(dir, "reports"),
		"--store", filepath.Join(dir, "s.db"), "--snapshot", filepath.Join(dir, "snapshot"), "--offline", "--out", out)
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	for _, want := range []string{"— 1 report scored,", "Compat P: the released ReportBench code's precision", "check-worthy per report on average", "nodes per claim"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, stdout)
		}
	}
	for _, never := range []string{"1 reports", "check-worthy a report", "nodes a claim"} {
		if strings.Contains(stdout, never) {
			t.Errorf("eval output says %q:\n%s", never, stdout)
		}
	}
	demo, _, _ := cli(t, "demo")
	if !strings.Contains(demo, "https://arxiv.org/abs/2004.04906 (by its paper's DOI)") {
		t.Errorf("the DOI match of an arXiv URL is not explained:\n%s", demo)
	}

	table, errOut, code := cli(t, "leaderboard", "--ci", out)
	if code != 0 {
		t.Fatalf("leaderboard --ci: %s", errOut)
	}
	if !strings.Contains(table, "(one report: no interval)") || strings.Contains(table, "[0.810, 0.810]") {
		t.Errorf("a one-report interval:\n%s", table)
	}
	cmp, errOut, code := cli(t, "analyze", "compare", out, out)
	if code != 0 {
		t.Fatalf("analyze compare: %s", errOut)
	}
	if !strings.Contains(cmp, "(one task: no interval)") {
		t.Errorf("a one-task comparison interval:\n%s", cmp)
	}
}
