package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/claimtrace/claimtrace"
)

// A run budget (llm.max_cost, llm.max_calls, --max-cost, --max-calls,
// CLAIMTRACE_MAX_COST, CLAIMTRACE_MAX_CALLS) has one spelling per meaning:
// a positive number is a limit, "none" (or leaving the setting out) is no
// limit, and 0 is refused, since it read as "no limit" here and as "zero"
// everywhere else. config --show prints a budget only when there is one.

// errZeroBudget says what to write instead of a 0 budget.
var errZeroBudget = fmt.Errorf("0 is not a budget (it used to mean no limit): write none, or leave the setting out, for no limit; --dry-run prices a run without spending: %w", claimtrace.ErrInvalid)

// parseMaxCost reads a dollar budget: a positive number, or none (0: no
// limit, as llm.NewBudget takes it).
func parseMaxCost(s string) (float64, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, fmt.Errorf("want a positive number of US dollars, or none: %w", claimtrace.ErrInvalid)
	case f == 0:
		return 0, errZeroBudget
	}
	return f, nil
}

// parseMaxCalls reads a call budget: a positive integer, or none.
func parseMaxCalls(s string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil || n < 0:
		return 0, fmt.Errorf("want a positive number of calls, or none: %w", claimtrace.ErrInvalid)
	case n == 0:
		return 0, errZeroBudget
	}
	return n, nil
}

// zeroBudget refuses a config file that writes a budget as 0.
func zeroBudget(md toml.MetaData, l LLMConfig) error {
	if md.IsDefined("llm", "max_cost") && l.MaxCost == 0 {
		return fmt.Errorf("llm.max_cost = 0: %w", errZeroBudget)
	}
	if md.IsDefined("llm", "max_calls") && l.MaxCalls == 0 {
		return fmt.Errorf("llm.max_calls = 0: %w", errZeroBudget)
	}
	return nil
}
