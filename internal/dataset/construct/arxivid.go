package construct

import (
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// The two forms of arXiv identifier (arxiv.org/help/arxiv_identifier):
// the scheme in use since April 2007, YYMM.NNNN (YYMM.NNNNN since 2015),
// and the older archive/YYMMNNN, whose archive may carry a subject class
// (math.GT/0309136). Both may end in a version. The archive name is
// bounded so that an id always makes a short file name.
var (
	arXivNewID = lazyregexp.New(`^[0-9]{4}\.[0-9]{4,5}(v[0-9]{1,4})?$`)
	arXivOldID = lazyregexp.New(`^[a-z][a-z-]{0,31}(\.[A-Z]{2})?/[0-9]{7}(v[0-9]{1,4})?$`)
)

// idName returns the name of the file or folder that holds a paper's data
// in a stage folder: the id itself in the new form ("2206.03237",
// "2206.03237v2") and, in the old form, the id with its one slash turned
// into an underscore ("hep-th/9901001" → "hep-th_9901001"; archive names
// hold no underscore, so no two ids share a name). Anything else is
// refused with claimtrace.ErrInvalid: the ids come from a snapshot file
// and a journal, and an id such as ".." or "../x" must never become a path
// (issue 14: the sources stage once replaced the build folder itself for
// a record with id "..").
func idName(id string) (string, error) {
	switch {
	case arXivNewID.MatchString(id):
		return id, nil
	case arXivOldID.MatchString(id):
		return strings.Replace(id, "/", "_", 1), nil
	}
	return "", fmt.Errorf("arXiv id %q is neither the new form (2206.03237) nor the old one (hep-th/9901001): %w", id, claimtrace.ErrInvalid)
}
