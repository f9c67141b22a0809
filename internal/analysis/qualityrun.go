package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/claimtrace/claimtrace/internal/prompts"
)

// QualityPromptHash is the hash of the rubric prompt's current version,
// "" when it cannot be read.
func QualityPromptHash() string {
	p, err := prompts.Get("analysis/quality")
	if err != nil || p == nil {
		return ""
	}
	return p.Hash
}

// QualityRunID names a rubric run in the store: the model, the rubric
// prompt's version and the report budget maxChars, so that a rerun finds
// its calls and units again and a change of any of them starts a new run.
func QualityRunID(model string, maxChars int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d", model, QualityPromptHash(), maxChars)))
	return "quality-" + hex.EncodeToString(h[:])[:16]
}
