package judge

import (
	"fmt"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestDbg5(t *testing.T) {
	dir := sharedtest.Dir(t, "labels")
	var ps []labels.Pair
	split := labels.Split(os.Getenv("DBGSPLIT"))
	for _, f := range []string{"attributionbench/dev.jsonl", "wice/dev.jsonl"} {
		x, _ := labels.ReadFile(filepath.Join(dir, f))
		ps = append(ps, labels.Filter(x, split)...)
	}
	cf := "citint/claims_train.jsonl"
	if split == labels.SplitTest {
		cf = "citint/claims_dev.jsonl"
	}
	x, _ := labels.ReadFile(filepath.Join(dir, cf))
	ps = append(ps, x...)
	j, _ := NewDefaultOffline()
	type r struct {
		cover float64
		kind  string
		ok    bool
		ds    string
	}
	var rs []r
	for _, p := range ps {
		ix := passage.NewIndex(p.Evidence, j.opt)
		f := j.analyze(ix, p.Claim)
		if f.conflict.kind == "" || f.unknown != "" {
			continue
		}
		ok := p.Label == "contradicted" || (p.Dataset != "citint" && p.Label == "unsupported")
		rs = append(rs, r{f.conflict.cover, f.conflict.kind, ok, p.Dataset})
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].cover > rs[b].cover })
	fmt.Println("pairs", len(ps), "with a cue", len(rs))
	for _, th := range []float64{1, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4, 0.3} {
		n, k := 0, 0
		byk := map[string][2]int{}
		for _, x := range rs {
			if x.cover+1e-9 >= th {
				n++
				v := byk[x.kind]
				v[0]++
				if x.ok {
					k++
					v[1]++
				}
				byk[x.kind] = v
			}
		}
		fmt.Printf("th %.2f: said %3d right %3d (%.2f) %v\n", th, n, k, float64(k)/float64(max(n, 1)), byk)
	}
}
