package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lexical"
	"github.com/claimtrace/claimtrace/internal/store"
)

// unitExtract stores a report's model-extracted non-cited statements.
const unitExtract = "noncited_extraction"

// CitedStatement is a cited claim and one of its sources, as the paper's
// non-cited extraction prompt (A.4.2) is told which statements to leave
// out.
type CitedStatement struct {
	Statement string `json:"statement"`
	URL       string `json:"url"`
}

// ExtraStatement is a statement the extraction model returned that is not
// one of the parser's claims (paraphrased across sentences, or taken from a
// cited sentence): it is fact-checked and counted all the same, and shown
// here since it has no span.
type ExtraStatement struct {
	ID        string           `json:"id"`
	Statement string           `json:"statement"`
	Fact      *claimtrace.Fact `json:"fact"`
}

// placeThreshold is the least word overlap (Dice over content words) at
// which an extracted statement is taken to be a parser claim.
const placeThreshold = 0.6

type storedExtraction struct {
	SHA256     string   `json:"sha256"`
	Statements []string `json:"statements"`
}

// nonCitedExtracted is the parity path of the non-cited stage: the model
// extracts the report's non-cited factual statements (A.4.2) instead of a
// classifier deciding for each parser claim. If the extraction fails, the
// stage says so and nothing is counted as checked. Each statement is placed on
// the non-cited parser claim it restates, which becomes check-worthy;
// statements that restate none are fact-checked as extra statements. The
// extraction is one stored unit a report.
func (e *Evaluator) nonCitedExtracted(ctx context.Context, task, text string, cutoff time.Time, claims []ClaimResult, failed *[]string) (*NonCitedStats, error) {
	s := &NonCitedStats{}
	var cited []CitedStatement
	var idx []int
	for i, c := range claims {
		if !c.Cited {
			idx = append(idx, i)
			continue
		}
		for _, u := range c.Citations {
			cited = append(cited, CitedStatement{Statement: c.Text, URL: u})
		}
	}
	s.Claims = len(idx)
	statements, err := e.extraction(ctx, task, text, cited)
	if err != nil {
		if ctx.Err() != nil || isFatal(err) {
			return nil, err
		}
		s.Error = err.Error()
		*failed = append(*failed, unitExtract+":"+task)
		return s, nil
	}

	placed := map[int]string{} // claim index → statement
	var extra []ExtraStatement
	for _, st := range statements {
		best, score := -1, 0.0
		for _, ci := range idx {
			if _, taken := placed[ci]; taken {
				continue
			}
			if d := dice(st, claims[ci].Text); d > score {
				best, score = ci, d
			}
		}
		if best >= 0 && score >= placeThreshold {
			placed[best] = st
			continue
		}
		extra = append(extra, ExtraStatement{ID: fmt.Sprintf("x%d", len(extra)+1), Statement: st})
	}
	var check []int
	for _, ci := range idx {
		st, ok := placed[ci]
		w := ok
		claims[ci].CheckWorthy = &w
		if ok {
			claims[ci].Why = "extracted as a non-cited statement (A.4.2): " + st
			check = append(check, ci)
		} else {
			claims[ci].Why = "not extracted as a non-cited statement (A.4.2)"
		}
	}
	s.CheckWorthy = len(check) + len(extra)

	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for _, ci := range check {
		g.Go(func() error {
			f, ok, err := e.fact(gctx, task, claims[ci], paragraph(text, claims[ci].Start, claims[ci].End), cutoff)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			claims[ci].Fact = f
			if !ok {
				*failed = append(*failed, unitFact+":"+claims[ci].ID)
			}
			return nil
		})
	}
	for i := range extra {
		g.Go(func() error {
			x := &extra[i]
			f, ok, err := e.fact(gctx, task, ClaimResult{ID: x.ID, Text: x.Statement}, "", cutoff)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			x.Fact = f
			if !ok {
				*failed = append(*failed, unitFact+":"+x.ID)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Strings(*failed)
	for _, ci := range check {
		s.count(claims[ci].Fact)
	}
	for _, x := range extra {
		s.count(x.Fact)
	}
	s.Extracted = len(statements)
	s.Extra = extra
	return s, nil
}

// extraction returns the stored extraction of a report's text, or runs
// it. A failure is not stored: the report lists it among its failed units
// and --retry-failed runs the extraction again.
func (e *Evaluator) extraction(ctx context.Context, task, text string, cited []CitedStatement) ([]string, error) {
	sum := sha256.Sum256([]byte(text))
	sha := hex.EncodeToString(sum[:])
	if u, found, err := e.opts.Store.GetUnit(ctx, e.run, unitExtract, task); err != nil {
		return nil, err
	} else if found && u.Status == store.StatusDone {
		var x storedExtraction
		if json.Unmarshal(u.Data, &x) == nil && x.SHA256 == sha {
			return x.Statements, nil
		}
	}
	e.judges <- struct{}{}
	statements, err := e.opts.ExtractNonCited(ctx, text, cited)
	<-e.judges
	if err != nil {
		return nil, fmt.Errorf("non-cited statement extraction of %s: %w", task, err)
	}
	if statements == nil {
		statements = []string{}
	}
	data, _ := json.Marshal(storedExtraction{SHA256: sha, Statements: statements})
	if err := e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitExtract, Key: task, Status: store.StatusDone, Data: data}); err != nil {
		return nil, err
	}
	return statements, nil
}

// dice is the Dice coefficient of the content words of a and b.
func dice(a, b string) float64 {
	wa, wb := contentWords(a), contentWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	n := 0
	for w := range wa {
		if wb[w] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(wa)+len(wb))
}

// contentWords are the stemmed content words of s as the judge reads them
// (lexical.Tokenize: stop words dropped, CJK text as character bigrams),
// so that a model's rewording ("reduced" for "reduces") and Chinese
// statements still place.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range lexical.Tokenize(s) {
		if !t.Stop {
			out[t.Term] = true
		}
	}
	return out
}
