package lazyregexp

import (
	"regexp"
	"sync"
	"testing"
)

func TestLazyMatchesRegexp(t *testing.T) {
	const expr = `(?i)\b(river|lake)s?\b`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	if lazy.rx != nil {
		t.Fatal("compiled before first use")
	}
	for _, s := range []string{"Rivers and LAKES", "riverbank", ""} {
		if lazy.MatchString(s) != eager.MatchString(s) || lazy.ReplaceAllString(s, "x") != eager.ReplaceAllString(s, "x") ||
			len(lazy.FindAllStringIndex(s, -1)) != len(eager.FindAllStringIndex(s, -1)) {
			t.Errorf("%q: lazy and eager differ", s)
		}
	}
	if lazy.String() != expr {
		t.Errorf("String() = %q", lazy.String())
	}
}

func TestCompiledOnceConcurrently(t *testing.T) {
	r := New(`a+`)
	var wg sync.WaitGroup
	got := make([]*regexp.Regexp, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = r.Regexp()
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("compiled more than once")
		}
	}
}

func TestBadExpressionPanicsOnUse(t *testing.T) {
	r := New(`(`) // no panic here: nothing is compiled at start-up
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on first use")
		}
	}()
	r.MatchString("x")
}
