package report

import (
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// notAWork reports whether the content of an unlabelled reference-list
// entry without a URL or an identifier names no work at all, so it must
// not become a title-only "paper" looked up by its words:
//   - a label line ending in a colon: a sub-heading ("关键引用：", Grok's
//     "Key citations:"), "Available from:" left on a line of its own;
//   - a CSS declaration an export left as text ("text-align: center");
//   - a remark ("Note: figures are vendor-reported", "注：…").
func notAWork(content string) bool {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(content), "*_#>"))
	if t == "" {
		return true
	}
	if (strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：")) && utf8.RuneCountInString(t) <= 40 {
		return true
	}
	if cssDeclarations.MatchString(t) {
		return true
	}
	low := strings.ToLower(t)
	for _, p := range remarkPrefixes {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// cssDeclarations matches one or more CSS declarations and nothing else:
// "text-align: center", "font-size: 12px; color: #333;".
var cssDeclarations = lazyregexp.New(`^(?:(?:[a-z]+-)+[a-z]+|color|display|margin|padding|width|height|border|float|background)\s*:\s*[#\w.%(),-]+(?:\s+[#\w.%(),-]+){0,3}\s*;?(?:\s*(?:[a-z]+-)*[a-z]+\s*:\s*[#\w.%(),-]+(?:\s+[#\w.%(),-]+){0,3}\s*;?)*$`)

// remarkPrefixes open a remark, not a work (lower case; "：" is the
// full-width colon of Chinese text).
var remarkPrefixes = []string{"note:", "notes:", "nb:", "n.b.", "remark:", "disclaimer:", "注：", "注:", "备注", "说明：", "說明：", "附注"}
