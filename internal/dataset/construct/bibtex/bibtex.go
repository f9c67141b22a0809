// Package bibtex parses BibTeX databases the way BibTeX reads them: entries
// delimited by braces or parentheses, @string macros (with the predefined
// month names), # concatenation, quoted and braced values with nested
// braces, @preamble and @comment, and crossref inheritance.
//
// Field values keep their LaTeX markup (inner braces, accents, commands):
// turning them into plain Unicode is the caller's concern (see package
// latex). Outer delimiters are removed and runs of white space are
// collapsed to one space, as BibTeX does.
//
// Parse never gives up on a whole file because of one broken entry: it
// records the problem with its line, skips to the next '@' and carries on,
// returning what it could read together with an ErrorList.
package bibtex

import (
	"fmt"
	"strings"
)

// Field is one "name = value" pair of an entry. Name is lowercased.
type Field struct {
	Name  string
	Value string
}

// Entry is one bibliography entry such as @article{key, ...}.
type Entry struct {
	// Type is the lowercased entry type: "article", "inproceedings", ….
	Type string
	// Key is the citation key, case preserved.
	Key string
	// Fields are in source order; a field repeated inside one entry keeps
	// its last value at the position of its first occurrence.
	Fields []Field
	// Line is the 1-based line of the entry's '@'.
	Line int
}

// Get returns the value of the named field (case-insensitive) and whether
// the entry has it.
func (e *Entry) Get(name string) (string, bool) {
	name = strings.ToLower(name)
	for _, f := range e.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// set replaces the value of an existing field or appends a new one.
func (e *Entry) set(name, value string) {
	for i := range e.Fields {
		if e.Fields[i].Name == name {
			e.Fields[i].Value = value
			return
		}
	}
	e.Fields = append(e.Fields, Field{Name: name, Value: value})
}

// Database is a parsed .bib file (or several merged with Merge).
type Database struct {
	// Entries are unique by key. A key defined twice keeps the position of
	// its first definition and the content of its last ("last wins").
	Entries []*Entry
	// Preambles are the values of @preamble commands, in order.
	Preambles []string
	// Duplicates counts keys that were defined more than once.
	Duplicates int

	index map[string]int // key → position in Entries
	fold  map[string]int // lowercased key → position, for case-insensitive lookup
}

// Lookup returns the entry cited as key: an exact match first, then a
// case-insensitive one (BibTeX matches keys without regard to case).
func (db *Database) Lookup(key string) *Entry {
	if i, ok := db.index[key]; ok {
		return db.Entries[i]
	}
	if i, ok := db.fold[strings.ToLower(key)]; ok {
		return db.Entries[i]
	}
	return nil
}

// add inserts e, replacing an earlier entry with the same key.
func (db *Database) add(e *Entry) {
	if db.index == nil {
		db.index = make(map[string]int)
		db.fold = make(map[string]int)
	}
	if i, ok := db.index[e.Key]; ok {
		db.Entries[i] = e
		db.Duplicates++
		return
	}
	db.index[e.Key] = len(db.Entries)
	if _, ok := db.fold[strings.ToLower(e.Key)]; !ok {
		db.fold[strings.ToLower(e.Key)] = len(db.Entries)
	}
	db.Entries = append(db.Entries, e)
}

// Merge adds the entries of other to db; on a key present in both, other
// wins, as if its file had been read after db's.
func (db *Database) Merge(other *Database) {
	for _, e := range other.Entries {
		db.add(e)
	}
	db.Duplicates += other.Duplicates
	db.Preambles = append(db.Preambles, other.Preambles...)
}

// ResolveCrossrefs copies into every entry with a crossref field the fields
// it lacks from the entry it references, as BibTeX does. A proceedings or
// book parent's title also fills a missing booktitle. Missing targets and
// crossref chains longer than one hop are tolerated: only one level is
// inherited, and the crossref field itself is kept.
func (db *Database) ResolveCrossrefs() {
	for _, e := range db.Entries {
		ref, ok := e.Get("crossref")
		if !ok {
			continue
		}
		parent := db.Lookup(strings.TrimSpace(ref))
		if parent == nil || parent == e {
			continue
		}
		for _, f := range parent.Fields {
			if _, has := e.Get(f.Name); has {
				continue
			}
			if f.Name == "crossref" {
				continue
			}
			e.Fields = append(e.Fields, f)
		}
		if _, has := e.Get("booktitle"); !has {
			if t, ok := parent.Get("title"); ok {
				e.Fields = append(e.Fields, Field{Name: "booktitle", Value: t})
			}
		}
	}
}

// SyntaxError is one problem found while parsing: the entry around it is
// skipped.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

// Error formats the problem as file:line: message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ErrorList is every problem of one Parse call, in source order.
type ErrorList []*SyntaxError

// Error reports the first problem and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// months are BibTeX's predefined macros, expanded to full names as the
// standard styles do.
var months = map[string]string{
	"jan": "January", "feb": "February", "mar": "March", "apr": "April",
	"may": "May", "jun": "June", "jul": "July", "aug": "August",
	"sep": "September", "oct": "October", "nov": "November", "dec": "December",
}

// Parse reads a BibTeX database. name is used in error messages only.
// Unlike BibTeX, a value never extends past a line that begins with '@'
// (the start of the next entry), so one unterminated value costs only its
// own entry.
// The returned Database holds every entry that could be read; err, when not
// nil, is an ErrorList describing the skipped parts.
func Parse(name string, src []byte) (*Database, error) {
	p := &parser{file: name, src: src, macros: make(map[string]string), starts: lineStarts(src)}
	db := &Database{}
	p.run(db)
	if len(p.errs) > 0 {
		return db, p.errs
	}
	return db, nil
}
