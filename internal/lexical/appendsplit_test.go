package lexical

import (
	"slices"
	"testing"
)

// FuzzAppendSplit: AppendSplit appends what Split returns after the
// spans already in the slice, which it leaves alone, for any piece of the
// text.
func FuzzAppendSplit(f *testing.F) {
	f.Add("The ferry left at 9. It came back at noon! Did it?", 4, 30)
	f.Add("Fig. 3 shows it. b, Raw Bell state … the end", 0, 44)
	f.Add("“Quoted.” Then [12] more text.\nNext line: here", 2, 40)
	f.Fuzz(func(t *testing.T, text string, start, end int) {
		if start < 0 || end > len(text) || start > end {
			start, end = 0, len(text)
		}
		prefix := []Span{{Start: -1, End: -2}}
		for _, sp := range []Splitter{{}, {LowerStarts: true}, {GluedStarts: true}} {
			want := sp.Split(text, start, end, nil)
			got := sp.AppendSplit(slices.Clone(prefix), text, start, end, nil)
			if got[0] != prefix[0] || !slices.Equal(got[1:], want) {
				t.Fatalf("%+v %q [%d:%d]: AppendSplit %+v, Split %+v", sp, text, start, end, got, want)
			}
		}
	})
}
