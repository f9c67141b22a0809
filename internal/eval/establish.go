package eval

import (
	"context"
	"encoding/json"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/scholar"
	"github.com/claimtrace/claimtrace/internal/store"
)

// unitIdentity stores the scholarly search made to establish what an
// unverifiable source is (establish), so a rerun does not ask again.
const unitIdentity = "identity"

// minSlugWords is the fewest words a URL's slug needs to be read as a
// title: "/news/widgets" names nothing, "/deep-residual-learning-for-image-
// recognition" a paper.
const minSlugWords = 4

// establish is the last try before a source is scored unverifiable (alive,
// unreadable, no identity from its URL, its meta tags or the APIs): what the
// report itself says of it. In order: the title its reference-list entry
// gives it (the entry's year and first author must agree with what is
// found), then the words of its URL's slug. Offline, a title or slug is
// taken only when it is a ground-truth reference's own: the report's word
// for a paper, as a title-only reference is (the work is then a paper, not
// verified, so its provenance stays incomplete). With the scholarly APIs,
// they are searched, and a record whose title is the same (TitleKey) is the
// work, verified. What is still unknown stays unverifiable. Searches are
// stored as units; one that fails is retried with --retry-failed.
func (e *Evaluator) establish(ctx context.Context, st *reportState) error {
	for _, s := range st.sources {
		w := s.resolution.Work
		if !s.resolvable() || w.Kind != claimtrace.WorkUnverifiable {
			continue
		}
		for _, c := range []struct{ query, via string }{{s.hint, "reference_list"}, {slugTitle(w.URL), "url_slug"}} {
			if c.query == "" {
				continue
			}
			found, ok, err := e.establishBy(ctx, st, s, c.query, c.via)
			if err != nil {
				return err
			}
			if ok {
				s.resolution.Work = found
				break
			}
		}
	}
	return nil
}

// establishBy tries one query (a stated title or a slug) for source s: the
// ground truth first, then the scholarly APIs when there are some.
func (e *Evaluator) establishBy(ctx context.Context, st *reportState, s *citedSource, query, via string) (claimtrace.Work, bool, error) {
	w := s.resolution.Work
	if m, ok := st.index().Match(claimtrace.Work{Title: query}); ok && (m.Method == biblio.MethodTitle || via == "reference_list" && m.Method == biblio.MethodFuzzyTitle) {
		w.Title, w.Kind, w.Via = query, claimtrace.WorkPaper, via
		return w, true, nil
	}
	if e.opts.Scholar == nil {
		return w, false, nil
	}
	recs, err := e.searchIdentity(ctx, st, s, query)
	if err != nil {
		return w, false, err
	}
	year, author := entryYear(s.entry, s.hint), entryAuthor(s.entry, s.hint)
	want := biblio.TitleKey(query)
	for _, rec := range recs {
		if biblio.TitleKey(rec.Title) != want || !agreesWithEntry(rec, year, author) {
			continue
		}
		w.ArXivID, w.DOI, w.Authors, w.Published = "", "", nil, time.Time{}
		takeRecord(&w, rec)
		w.Title, w.Kind, w.Via = rec.Title, claimtrace.WorkPaper, via+"+"+rec.Source
		w.Key = biblio.Key(w)
		return w, true, nil
	}
	return w, false, nil
}

// searchIdentity returns the records a title search gives for query, from
// the store or by asking the APIs (stored as a unit keyed by the source and
// the query). A search that failed outright is stored failed and asked
// again with --retry-failed; partial answers are used.
func (e *Evaluator) searchIdentity(ctx context.Context, st *reportState, s *citedSource, query string) ([]scholar.Record, error) {
	key := s.key + "|" + biblio.TitleKey(query)
	u, ok, err := e.opts.Store.GetUnit(ctx, e.run, unitIdentity, key)
	if err != nil {
		return nil, err
	}
	var recs []scholar.Record
	if ok && (u.Status == store.StatusDone || !e.opts.RetryFailed || e.retriedSince(u)) && json.Unmarshal(u.Data, &recs) == nil {
		if u.Status != store.StatusDone {
			st.res.FailedUnits = append(st.res.FailedUnits, unitIdentity+":"+key)
		}
		return recs, nil
	}
	recs, err = e.opts.Scholar.SearchTitle(ctx, query)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	status, msg := store.StatusDone, ""
	if err != nil && len(recs) == 0 {
		status, msg = store.StatusFailed, err.Error()
		st.res.FailedUnits = append(st.res.FailedUnits, unitIdentity+":"+key)
	}
	data, _ := json.Marshal(recs)
	if err := e.opts.Store.PutUnit(context.WithoutCancel(ctx), store.Unit{Run: e.run, Kind: unitIdentity, Key: key, Status: status, Data: data, Err: msg}); err != nil {
		return nil, err
	}
	return recs, nil
}

// index returns the report's ground-truth index, built once.
func (st *reportState) index() *biblio.Index {
	if st.gtIndex == nil {
		st.gtIndex = biblio.NewIndex(st.gt)
	}
	return st.gtIndex
}

// agreesWithEntry reports whether a record found for a stated title fits
// the rest of the entry: its year within one of the entry's (preprint and
// publication years differ), its authors naming the entry's first author.
// What the entry or the record does not give is not held against it.
func agreesWithEntry(rec scholar.Record, year int, author string) bool {
	if year != 0 && !rec.Published.IsZero() {
		if d := rec.Published.Year() - year; d < -1 || d > 1 {
			return false
		}
	}
	if author != "" && len(rec.Authors) > 0 {
		for _, a := range rec.Authors {
			if strings.Contains(strings.ToLower(biblio.NormalizeTitle(a)), author) {
				return true
			}
		}
		return false
	}
	return true
}

// yearRE finds a plausible publication year.
var yearRE = lazyregexp.New(`\b(19[5-9]\d|20\d\d)\b`)

// entryYear is the one year an entry states outside its title (0 when it
// states none, or several).
func entryYear(entry, title string) int {
	if entry == "" {
		return 0
	}
	if title != "" {
		entry = strings.Replace(entry, title, " ", 1)
	}
	year := 0
	for _, m := range yearRE.FindAllString(entry, -1) {
		y, _ := strconv.Atoi(m)
		if year != 0 && y != year {
			return 0
		}
		year = y
	}
	return year
}

// notNames are capitalised words that open an entry without naming an
// author.
var notNames = map[string]bool{"and": true, "et": true, "al": true, "the": true, "in": true, "see": true, "available": true, "retrieved": true, "online": true}

// entryAuthor is the first author's surname an entry gives before its
// title, normalized ("Wang, L. Deep radar…" is "wang"), or "" when the
// entry does not open with a name.
func entryAuthor(entry, title string) string {
	if entry == "" || title == "" {
		return ""
	}
	i := strings.Index(entry, title)
	if i <= 0 {
		return ""
	}
	head := entry[:i]
	if j := strings.Index(head, "]"); j >= 0 && j < 8 {
		head = head[j+1:] // "[3] "
	}
	for _, f := range strings.FieldsFunc(head, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' && r != '\'' }) {
		rs := []rune(f)
		if len(rs) < 3 || !unicode.IsUpper(rs[0]) || notNames[strings.ToLower(f)] {
			continue
		}
		return strings.ReplaceAll(biblio.NormalizeTitle(f), " ", "")
	}
	return ""
}

// slugTitle reads the last path segment of a URL as a title, when it is
// one: at least minSlugWords words joined by '-', '_' or '+', each all
// letters or all digits (all but one of letters), a trailing numeric or
// hexadecimal id and a file extension dropped ("…/deep-residual-learning-for-image-recognition-4f9a2c.html").
// It returns "" for anything else.
func slugTitle(raw string) string {
	c, err := biblio.CanonicalURL(raw)
	if err != nil {
		return ""
	}
	p := strings.TrimPrefix(c, "https://")
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return ""
	}
	seg := path.Base(p[i:])
	if ext := path.Ext(seg); len(ext) <= 5 {
		seg = strings.TrimSuffix(seg, ext)
	}
	words := strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '+' })
	if n := len(words); n > 0 && isIDToken(words[n-1]) {
		words = words[:n-1]
	}
	if len(words) < minSlugWords {
		return ""
	}
	letters := 0
	for _, w := range words {
		switch {
		case !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }):
			letters++
		case !strings.ContainsFunc(w, func(r rune) bool { return r < '0' || r > '9' }):
		default:
			return "" // "3f9a": an id, not a word
		}
	}
	if letters < minSlugWords-1 {
		return ""
	}
	return strings.Join(words, " ")
}

// isIDToken reports a slug's trailing id: digits, or six or more hex
// characters with a digit among them.
func isIDToken(w string) bool {
	if w == "" {
		return false
	}
	hex, digit := true, false
	for _, r := range strings.ToLower(w) {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'f':
		default:
			hex = false
		}
	}
	allDigits := strings.Trim(w, "0123456789") == ""
	return allDigits || hex && digit && len(w) >= 6
}
