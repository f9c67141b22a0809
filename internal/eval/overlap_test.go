package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/demo"
)

// stageOrder forces the order in which a report's cited judging and its
// non-cited stage (check-worthiness, fact-checking) meet: "together"
// makes the first call of each stage wait until the other stage has
// started, so the report finishes only if both are in flight at once;
// "judge-first" holds the non-cited stage until every judge call has
// returned: the order the stages ran in before they overlapped. (The
// reverse cannot be forced from inside the calls: judge calls held back
// would hold every judging slot the fact-checks need.)
type stageOrder struct {
	order string
	// judgeCalls and factCalls are the calls each stage makes in all (from
	// a "together" run), for the orders that wait for one to finish.
	judgeCalls, factCalls int64

	judgeStarted, factStarted chan struct{}
	judgeOnce, factOnce       sync.Once
	judgeDone, factDone       atomic.Int64
	timedOut                  atomic.Bool
}

func newStageOrder(order string, judgeCalls, factCalls int64) *stageOrder {
	return &stageOrder{order: order, judgeCalls: judgeCalls, factCalls: factCalls,
		judgeStarted: make(chan struct{}), factStarted: make(chan struct{})}
}

// wait blocks until cond holds, polling; it gives up after a few seconds
// and says so (the stages never overlapped, or never finished).
func (o *stageOrder) wait(cond func() bool) {
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			o.timedOut.Store(true)
			return
		}
	}
}

func closed(c chan struct{}) func() bool {
	return func() bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
}

// enterJudge is called as a judge call starts, exitJudge as it returns.
func (o *stageOrder) enterJudge() {
	o.judgeOnce.Do(func() { close(o.judgeStarted) })
	switch o.order {
	case "together":
		o.wait(closed(o.factStarted))
	}
}

func (o *stageOrder) exitJudge() { o.judgeDone.Add(1) }

// enterFacts is called as a classifier or fact-check call starts,
// exitFacts as it returns.
func (o *stageOrder) enterFacts() {
	o.factOnce.Do(func() { close(o.factStarted) })
	switch o.order {
	case "together":
		o.wait(closed(o.judgeStarted))
	case "judge-first":
		o.wait(func() bool { return o.judgeDone.Load() == o.judgeCalls })
	}
}

func (o *stageOrder) exitFacts() { o.factDone.Add(1) }

// orderedJudge is a judge whose calls go through a stageOrder. It fails
// (a unit failure, not the run's) on the sources whose text holds
// failOn, and otherwise finds a claim supported when the source's text
// holds the claim's first word, quoting the source's first 40 bytes.
type orderedJudge struct {
	o      *stageOrder
	failOn string
}

func (j orderedJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	j.o.enterJudge()
	defer j.o.exitJudge()
	if strings.Contains(source, j.failOn) {
		return nil, errors.New("judge answered 502")
	}
	out := make([]claimtrace.Verdict, len(claims))
	for i, c := range claims {
		first, _, _ := strings.Cut(c, " ")
		if strings.Contains(source, first) {
			out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.8, Evidence: source[:min(40, len(source))]}
		} else {
			out[i] = claimtrace.Verdict{Label: claimtrace.Unsupported, Strength: 0.1}
		}
	}
	return out, nil
}

// TestJudgingAndFactCheckingOverlap runs the demo report with a fake judge,
// classifier and fact-checker that force the two stages to be in flight at
// once, and checks that the report and every stored unit come out byte
// for byte as when the stages run one after the other, either way round,
// failed units included (a judge failing on one source, a fact-check
// failing on one claim, or the classifier failing).
func TestJudgingAndFactCheckingOverlap(t *testing.T) {
	for _, classifierFails := range []bool{false, true} {
		var judgeCalls, factCalls int64
		outputs := map[string][]byte{}
		units := map[string][]string{}
		for _, order := range []string{"together", "judge-first"} {
			o := newStageOrder(order, judgeCalls, factCalls)
			opts, dir := demoRun(t)
			opts.Concurrency = 4
			opts.Judge, opts.JudgeName = orderedJudge{o: o, failOn: "Shahul Es, Jithin James"}, "ordered"
			opts.ClassifyCheckWorthy = func(ctx context.Context, claims []string) ([]bool, []string, error) {
				o.enterFacts()
				defer o.exitFacts()
				if classifierFails {
					return nil, nil, errors.New("classifier answered 503")
				}
				ok := make([]bool, len(claims))
				why := make([]string, len(claims))
				for i := range claims {
					ok[i], why[i] = true, "a scripted answer"
				}
				return ok, why, nil
			}
			opts.FactCheck = func(ctx context.Context, in FactInput) (claimtrace.Fact, error) {
				o.enterFacts()
				defer o.exitFacts()
				if strings.Contains(in.Claim, "frozen at training time") {
					return claimtrace.Fact{}, errors.New("search answered 500")
				}
				return claimtrace.Fact{Label: claimtrace.FactTrue, Confidence: 1, Votes: []claimtrace.Vote{{Checker: "scripted", Label: claimtrace.FactTrue}}}, nil
			}
			opts.FactCheckName = "scripted"
			ev, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ev.Run(context.Background()); err != nil {
				t.Fatalf("%s: %v", order, err)
			}
			if o.timedOut.Load() {
				t.Fatalf("classifier fails %v, order %s: a stage waited in vain for the other (judge calls %d, non-cited calls %d)",
					classifierFails, order, o.judgeDone.Load(), o.factDone.Load())
			}
			if order == "together" {
				judgeCalls, factCalls = o.judgeDone.Load(), o.factDone.Load()
			}
			data, err := os.ReadFile(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			// Runs differ by their folder only.
			anywhere := func(b []byte) string { return strings.ReplaceAll(string(b), dir, "DIR") }
			outputs[order] = []byte(anywhere(data))
			for _, kind := range []string{unitVerdicts, unitWorthy, unitFact, unitReport, unitGraph} {
				us, err := opts.Store.Units(context.Background(), ev.RunID(), kind)
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range us {
					units[order] = append(units[order], kind+" "+u.Key+" "+u.Status+" "+anywhere(u.Data))
				}
			}
			r, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			// The order the stages always listed their failures in: the
			// judge's, then the non-cited stage's, sorted as one list
			// unless the non-cited stage itself failed.
			want := []string{}
			for _, f := range r.FailedUnits {
				if strings.HasPrefix(f, unitVerdicts+":") {
					want = append(want, f)
				}
			}
			if classifierFails {
				want = append(want, unitWorthy+":"+demo.TaskID)
			} else {
				want = append(want, unitFact+":"+factID(t, r, "frozen at training time"))
				slices.Sort(want)
			}
			if len(want) < 2 || !strings.HasPrefix(want[len(want)-1], unitVerdicts+":") && !classifierFails {
				t.Errorf("%s: failed units %q: want the judge's failures and the non-cited stage's", order, r.FailedUnits)
			}
			if diff := cmp.Diff(want, r.FailedUnits); diff != "" {
				t.Errorf("classifier fails %v, order %s: failed units (-want +got):\n%s", classifierFails, order, diff)
			}
		}
		if judgeCalls < 2 || factCalls < 1 {
			t.Fatalf("judge calls %d, non-cited calls %d: the demo report should need several of each", judgeCalls, factCalls)
		}
		for _, order := range []string{"judge-first"} {
			if diff := cmp.Diff(string(outputs[order]), string(outputs["together"])); diff != "" {
				t.Errorf("classifier fails %v: report file, %s (-) and together (+):\n%s", classifierFails, order, diff)
			}
			if diff := cmp.Diff(units[order], units["together"]); diff != "" {
				t.Errorf("classifier fails %v: stored units, %s (-) and together (+):\n%s", classifierFails, order, diff)
			}
		}
	}
}

// factID is the id of the claim whose text holds s.
func factID(t *testing.T, r *Result, s string) string {
	t.Helper()
	for _, c := range r.Claims {
		if strings.Contains(c.Text, s) {
			return c.ID
		}
	}
	t.Fatalf("no claim holds %q", s)
	return ""
}
