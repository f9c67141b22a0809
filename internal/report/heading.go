package report

import "strings"

// IsHeading reports whether line is a Markdown ATX heading ("## Methods"):
// one to six '#' after any leading spaces, then a space, a tab or the end
// of the line (a final line break aside). It is the loose test of code
// that cuts or reads report text line by line, without the block parser's
// indentation rule: the non-cited extraction's blocks and a fact-check's
// context paragraph.
func IsHeading(line string) bool {
	level, _ := atxHeading(strings.TrimSuffix(strings.TrimLeft(line, " "), "\n"))
	return level > 0
}
