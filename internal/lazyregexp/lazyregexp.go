// Package lazyregexp is a regular expression compiled the first time it
// is used rather than when its package initialises. Every package of the
// binary initialises at start-up, whatever the command, so a package
// variable holding a compiled expression costs every run of every
// command; a lazy one costs only the commands that use it. Go's own
// cmd/go does the same (its internal/lazyregexp).
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of *regexp.Regexp the program uses; it is safe for concurrent
// use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the lazily compiled expr. A bad expression panics on first
// use, as regexp.MustCompile would at start-up: every expression is a
// constant of the program, and tests use them all.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// Match is regexp.Regexp.Match.
func (r *Regexp) Match(b []byte) bool { return r.Regexp().Match(b) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is regexp.Regexp.ReplaceAllLiteralString.
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Regexp().ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

// Split is regexp.Regexp.Split.
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }

// SubexpIndex is regexp.Regexp.SubexpIndex.
func (r *Regexp) SubexpIndex(name string) int { return r.Regexp().SubexpIndex(name) }
