package store

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestRebind(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT * FROM units WHERE run_id = ? AND kind = ?`, `SELECT * FROM units WHERE run_id = $1 AND kind = $2`},
		{`VALUES (?, ?, ?)`, `VALUES ($1, $2, $3)`},
		{`WHERE status = 'done?' AND k = ?`, `WHERE status = 'done?' AND k = $1`},
		{`WHERE a = 'it''s ?' AND b = ?`, `WHERE a = 'it''s ?' AND b = $1`},
		{`SELECT "odd?col" FROM t WHERE x = ?`, `SELECT "odd?col" FROM t WHERE x = $1`},
		{"SELECT ? -- why?\nFROM t WHERE x = ?", "SELECT $1 -- why?\nFROM t WHERE x = $2"},
		{`SELECT ? /* and ? */ , ?`, `SELECT $1 /* and ? */ , $2`},
		{`WHERE a = 'unterminated ?`, `WHERE a = 'unterminated ?`},
		{`SELECT ? /* open ?`, `SELECT $1 /* open ?`},
		{`?????????????`, `$1$2$3$4$5$6$7$8$9$10$11$12$13`},
	}
	for _, tt := range tests {
		if got := postgresDialect.rebind(tt.in); got != tt.want {
			t.Errorf("postgres rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := sqliteDialect.rebind(tt.in); got != tt.in {
			t.Errorf("sqlite rebind(%q) = %q, want it unchanged", tt.in, got)
		}
	}
}

// FuzzRebind checks that rebinding replaces some "?" by $1, $2, … in order
// and keeps every other byte; with no quotes or comments, all of them.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{`SELECT ? FROM t WHERE a = 'x?' AND "y?" = ?`, "-- ?\n?", "/* ? */?", `'''?'`, `"`, `?`, `$1 ?`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out := postgresDialect.rebind(q)
		i, j, n := 0, 0, 0
		for i < len(q) {
			next := "$" + strconv.Itoa(n+1)
			switch {
			case q[i] == '?' && strings.HasPrefix(out[j:], next):
				n++
				i, j = i+1, j+len(next)
			case j < len(out) && q[i] == out[j]:
				i, j = i+1, j+1
			default:
				t.Fatalf("rebind(%q) = %q: differs at byte %d of the query", q, out, i)
			}
		}
		if j != len(out) {
			t.Fatalf("rebind(%q) = %q: trailing bytes", q, out)
		}
		if !strings.ContainsAny(q, `'"-/`) && n != strings.Count(q, "?") {
			t.Fatalf("rebind(%q) = %q: %d of %d placeholders numbered", q, out, n, strings.Count(q, "?"))
		}
	})
}

func TestRedactDSN(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"postgres://u:hunter2@db/x", "postgres://u:xxxxx@db/x"},
		{"postgresql://u:p@ss@db:5433/x?sslmode=disable", "postgresql://u:xxxxx@db:5433/x?sslmode=disable"},
		{"postgres://u@db/x", "postgres://u@db/x"},
		{"postgres://db/x?user=u&password=hunter2&sslmode=require", "postgres://db/x?user=u&password=xxxxx&sslmode=require"},
		{"postgres://db/x?sslpassword=hunter2", "postgres://db/x?sslpassword=xxxxx"},
		{"postgres://u:a/b@db/x", "postgres://u:xxxxx@db/x"},
		{"host=db password=hunter2 dbname=x", "host=db password=xxxxx dbname=x"},
		{"host=db PASSWORD='hunter 2\\' x' dbname=x", "host=db PASSWORD=xxxxx dbname=x"},
		{"/var/lib/claimtrace/claimtrace.db", "/var/lib/claimtrace/claimtrace.db"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactDSN(tt.in); got != tt.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzRedactDSN builds URLs around a password and checks that exactly the
// password is masked.
func FuzzRedactDSN(f *testing.F) {
	f.Add("u", "hunter2", "db:5432/x", "sslmode=disable")
	f.Add("", "p@ss/w:rd", "h", "")
	f.Add("user", "pw", "h/db", "password=second&application_name=a@b")
	f.Add("00000", "/00000", "0", "0") // the password repeats the user name
	f.Fuzz(func(t *testing.T, user, pass, rest, query string) {
		if strings.ContainsAny(user, ":@") || strings.Contains(rest+query, "@") {
			return
		}
		dsn := "postgres://" + user + ":" + pass + "@" + rest + "?" + query
		got := RedactDSN(dsn)
		masked := "postgres://" + user + ":xxxxx@" + rest + "?"
		if indexFoldASCII(dsn, "password=") < 0 {
			if got != masked+query {
				t.Fatalf("RedactDSN(%q) = %q, want %q", dsn, got, masked+query)
			}
			return
		}
		// A password= parameter is masked too, in the query or in rest.
		if !strings.HasPrefix(got, "postgres://"+user+":xxxxx@") {
			t.Fatalf("RedactDSN(%q) = %q: userinfo not masked", dsn, got)
		}
		if strings.Contains(got[len("postgres://"+user):], pass) && len(pass) > 5 && !strings.Contains(masked+query, pass) {
			t.Fatalf("RedactDSN(%q) = %q: the password survives", dsn, got)
		}
	})
}

func TestParseDSN(t *testing.T) {
	tests := []struct {
		in, backend, target string
		invalid             bool
	}{
		{in: "t.db", backend: "sqlite", target: "t.db"},
		{in: "sqlite:/a/b.db", backend: "sqlite", target: "/a/b.db"},
		{in: "sqlite:///a/b.db", backend: "sqlite", target: "/a/b.db"},
		{in: "file:/a/b.db", backend: "sqlite", target: "/a/b.db"},
		{in: ":memory:", backend: "sqlite", target: ":memory:"},
		{in: "postgres://u:p@h/db", backend: "postgres", target: "postgres://u:p@h/db"},
		{in: "postgresql://h/db?search_path=s", backend: "postgres", target: "postgresql://h/db?search_path=s"},
		{in: "host=h dbname=db password=secret", invalid: true},
		{in: "", invalid: true},
		// A path with a space and an "=" is still a path.
		{in: "/data/my runs/a=b.db", backend: "sqlite", target: "/data/my runs/a=b.db"},
	}
	for _, tt := range tests {
		d, target, err := parseDSN(tt.in)
		if tt.invalid {
			if !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("parseDSN(%q) error = %v, want ErrInvalid", tt.in, err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("parseDSN(%q) error leaks the password: %v", tt.in, err)
			}
			continue
		}
		if err != nil || d.name != tt.backend || target != tt.target {
			t.Errorf("parseDSN(%q) = %s, %q, %v; want %s, %q", tt.in, d.name, target, err, tt.backend, tt.target)
		}
	}
}

// TestOpenPostgresErrorsHidePassword opens PostgreSQL URLs that cannot work
// (a closed loopback port, a malformed URL): the errors name the store and
// never print the password.
func TestOpenPostgresErrorsHidePassword(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	tests := []struct {
		dsn     string
		invalid bool
	}{
		{dsn: "postgres://u:hunter2@" + closed + "/x?connect_timeout=5"},
		{dsn: "postgres://u:hunter2@127.0.0.1:notaport/x", invalid: true},
		{dsn: "postgres://" + closed + "/x?password=hunter2&connect_timeout=5"},
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), tt.dsn)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", RedactDSN(tt.dsn))
		}
		msg := err.Error()
		if strings.Contains(msg, "hunter2") {
			t.Errorf("error leaks the password: %s", msg)
		}
		if !strings.Contains(msg, "open store postgres://") {
			t.Errorf("error does not name the store: %s", msg)
		}
		if got := errors.Is(err, claimtrace.ErrInvalid); got != tt.invalid {
			t.Errorf("Open(%s): errors.Is(err, ErrInvalid) = %v, want %v (%s)", RedactDSN(tt.dsn), got, tt.invalid, msg)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"é ✓", "é ✓"},
		{"a\x00b", "a\uFFFDb"},
		{"a\xffb", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
