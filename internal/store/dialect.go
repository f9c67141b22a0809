package store

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// dialect is what differs between the two backends. The queries themselves
// are written once, in the SQL both understand: "?" placeholders, ON CONFLICT
// upserts, CASE WHEN on boolean columns, CAST(… AS BIGINT) around sums.
type dialect struct {
	// name is "sqlite" or "postgres", as Store.Backend reports it.
	name string
	// driver is the database/sql driver name the caller registers.
	driver string
	// numbered placeholders: "$1, $2" instead of "?".
	numbered bool
	// oneWriter: the database takes one writer at a time, so writes are
	// serialized in-process (see Store.wmu).
	oneWriter bool
	// migrations is the directory of this backend's migration twins.
	migrations string
	// bytea: columns holding arbitrary bytes (unit data, page text) are
	// BYTEA, bound as []byte; SQLite keeps them TEXT, bound as string.
	bytea bool
}

var (
	sqliteDialect = dialect{name: "sqlite", driver: "sqlite", oneWriter: true, migrations: "migrations/sqlite"}
	// postgresDialect talks to the driver registered by
	// github.com/jackc/pgx/v5/stdlib.
	postgresDialect = dialect{name: "postgres", driver: "pgx", numbered: true, migrations: "migrations/postgres", bytea: true}
)

// rebind rewrites the "?" placeholders of q for the dialect. Question marks
// inside string literals, quoted identifiers and comments are left alone.
func (d dialect) rebind(q string) string {
	if !d.numbered || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := closing(q, i+1, c)
			b.WriteString(q[i:j])
			i = j - 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end - 1
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// closing returns the index just past the quote that closes a literal opened
// before i, a doubled quote being an escaped one; len(q) when unterminated.
func closing(q string, i int, quote byte) int {
	for i < len(q) {
		if q[i] != quote {
			i++
			continue
		}
		if i+1 < len(q) && q[i+1] == quote {
			i += 2
			continue
		}
		return i + 1
	}
	return len(q)
}

// bytes binds b for a column of arbitrary bytes.
func (d dialect) bytes(b []byte) any {
	if d.bytea {
		if b == nil {
			return []byte{}
		}
		return b
	}
	return string(b)
}

// cleanText makes s storable in a TEXT column of either backend:
// PostgreSQL refuses NUL and invalid UTF-8, which PDF titles and error
// messages quoting a page can hold. Both become U+FFFD on both backends,
// so the two behave alike.
func cleanText(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// parseDSN picks the backend for dsn. For SQLite it returns the file path
// (":memory:" for an in-memory database); for PostgreSQL the URL unchanged.
func parseDSN(dsn string) (dialect, string, error) {
	switch {
	case dsn == "":
		return dialect{}, "", fmt.Errorf("store: empty DSN: %w", claimtrace.ErrInvalid)
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return postgresDialect, dsn, nil
	case strings.HasPrefix(dsn, "sqlite:"):
		return sqliteDialect, strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//"), nil
	case strings.HasPrefix(dsn, "file:"):
		return sqliteDialect, strings.TrimPrefix(dsn, "file:"), nil
	case looksLikeKeywordDSN(dsn):
		return dialect{}, "", fmt.Errorf("store %q: a PostgreSQL keyword/value DSN; write it as postgres://user@host/db: %w",
			RedactDSN(dsn), claimtrace.ErrInvalid)
	}
	return sqliteDialect, dsn, nil
}

// looksLikeKeywordDSN reports whether dsn is a libpq "host=… dbname=…"
// string, which would otherwise become a SQLite file of that name.
func looksLikeKeywordDSN(dsn string) bool {
	if !strings.Contains(dsn, " ") {
		return false
	}
	for _, f := range strings.Fields(dsn) {
		k, _, ok := strings.Cut(f, "=")
		if ok && (k == "host" || k == "dbname" || k == "user" || k == "password" || k == "port" || k == "sslmode") {
			return true
		}
	}
	return false
}

// RedactDSN returns dsn with its passwords hidden, for messages and for
// printing a configuration: the one in the userinfo of a URL, a password=…
// query parameter and a password=… keyword. It errs on the side of hiding
// too much: whatever stands between the user name and the last "@" is
// masked, even when a URL parser would disagree.
func RedactDSN(dsn string) string {
	out := dsn
	if scheme := strings.Index(out, "://"); scheme >= 0 {
		if at := strings.LastIndex(out, "@"); at > scheme {
			userinfo := out[scheme+3 : at]
			if i := strings.IndexByte(userinfo, ':'); i >= 0 {
				out = out[:scheme+3] + userinfo[:i] + ":xxxxx" + out[at:]
			}
		}
	}
	return redactPasswordParams(out)
}

// redactPasswordParams masks the value of every "password=" parameter, in a
// URL query (…?password=x&…) or in a keyword/value string (password=x host=…);
// sslpassword= is masked too.
func redactPasswordParams(s string) string {
	var b strings.Builder
	last := 0
	for {
		j := indexFoldASCII(s[last:], "password=")
		if j < 0 {
			break
		}
		val := last + j + len("password=")
		end := val
		if end < len(s) && s[end] == '\'' {
			end = closingKeyword(s, end+1)
		} else {
			for end < len(s) && !strings.ContainsRune("& \t\r\n", rune(s[end])) {
				end++
			}
		}
		b.WriteString(s[last:val])
		b.WriteString("xxxxx")
		last = end
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// indexFoldASCII is strings.Index ignoring ASCII case; sub is lower case.
// Unlike searching strings.ToLower(s), its offsets are offsets into s.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		k := 0
		for k < len(sub) && lowerASCII(s[i+k]) == sub[k] {
			k++
		}
		if k == len(sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// closingKeyword returns the index past the quote closing a libpq
// keyword value opened before i ('…' with \' escapes); len(s) when
// unterminated.
func closingKeyword(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '\'':
			return i + 1
		}
		i++
	}
	return len(s)
}
