package judge

// Exported for the tests of package judge_test (cost_test.go), which
// also use the fact-checkers of internal/factcheck, a package importing
// this one.

// FindQuote is findQuote.
var FindQuote = findQuote

// DefaultPassageTokens is the LLM judge's default passage budget.
func DefaultPassageTokens() int { return LLMJudgeOptions{}.withDefaults().PassageTokens }
