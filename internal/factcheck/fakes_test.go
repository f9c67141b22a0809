package factcheck

import (
	"context"
	"regexp"
	"sync"

	"github.com/claimtrace/claimtrace"
)

var statementRE = regexp.MustCompile(`<statement n="(\d+)">(.*)</statement>`)

// statements returns the numbered statements of a prompt, in order.
func statements(prompt string) []string {
	var out []string
	for _, m := range statementRE.FindAllStringSubmatch(prompt, -1) {
		out = append(out, m[2])
	}
	return out
}

// scriptedChecker is a Checker answering from a list, one answer per
// vote number; an entry with Err set fails.
type scriptedChecker struct {
	name  string
	votes map[int]claimtrace.Vote // by vote number
	mu    sync.Mutex
	asked []int
}

func (s *scriptedChecker) Check(ctx context.Context, q Query) (claimtrace.Vote, error) {
	s.mu.Lock()
	s.asked = append(s.asked, q.Vote)
	s.mu.Unlock()
	v, ok := s.votes[q.Vote]
	if !ok {
		return claimtrace.Vote{Checker: s.name}, context.DeadlineExceeded
	}
	if v.Err != "" {
		return claimtrace.Vote{Checker: s.name}, errString(v.Err)
	}
	v.Checker = s.name
	return v, nil
}

func (s *scriptedChecker) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.asked)
}
