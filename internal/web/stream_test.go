package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/store"
)

// bigResult stores a report unit whose result holds n claims of about 500
// bytes, and returns the server over it and the unit's size.
func bigResult(t *testing.T, n int, maxResponse int64) (*Server, int) {
	t.Helper()
	st := openStore(t, t.TempDir())
	ctx := context.Background()
	if err := st.EnsureRun(ctx, "r1", "eval", "{}"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"sha256":"ab12","result":{"task_id":"2401.00001","sha256":"ab12","status":"done","claims":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"c%d","text":"Harbour dredging in district %d cost %d thousand, \"more\" than planned %s","start":%d,"end":%d,"cited":false,"citations":[],"verdicts":[]}`,
			i+1, i, i*7, strings.Repeat("and so on ", 40), i*10, i*10+5)
	}
	b.WriteString(`]}}`)
	if err := st.PutUnit(ctx, store.Unit{Run: "r1", Kind: unitReport, Key: "2401.00001", Status: store.StatusDone, Data: b.Bytes()}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Store: st, MaxResponseBytes: maxResponse})
	if err != nil {
		t.Fatal(err)
	}
	return srv, b.Len()
}

// TestReportAPIStreams: GET /api/runs/RUN/reports/ID answers the stored
// result byte for byte, holding the stored unit once (issue 23 item 5: a
// 198 MB result took the server from 54 to 810 MB): the allocation of one
// request stays under twice the unit's size, where decoding it into a
// json.RawMessage and buffering the answer cost three times and more.
func TestReportAPIStreams(t *testing.T) {
	srv, size := bigResult(t, 40000, 0)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func() []byte {
		resp, err := http.Get(ts.URL + "/api/runs/r1/reports/2401.00001")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d, type %q: %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		return body
	}
	body := get()
	var got struct {
		Task   string            `json:"task_id"`
		Claims []json.RawMessage `json:"claims"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Task != "2401.00001" || len(got.Claims) != 40000 {
		t.Fatalf("answer: task %q, %d claims, %v", got.Task, len(got.Claims), err)
	}
	// Measured in this process; the client reads into a small buffer.
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	resp, err := http.Get(ts.URL + "/api/runs/r1/reports/2401.00001")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&m1)
	alloc := int64(m1.TotalAlloc - m0.TotalAlloc)
	t.Logf("unit %d MB, answer %d MB; one request allocated %d MB", size>>20, n>>20, alloc>>20)
	if n != int64(len(body)) {
		t.Errorf("second answer %d bytes, first %d", n, len(body))
	}
	// Reading the unit from the store copies it once (the driver's string,
	// then the bytes); answering it adds nothing of its size.
	if alloc > 5*int64(size)/2 {
		t.Errorf("one request allocated %d bytes to answer a %d-byte stored result: more than 2.5 times its size", alloc, size)
	}
}

// TestResponseAdmission: reads of large stored documents wait for room
// under MaxResponseBytes, and a read whose client gives up while waiting
// gets no answer and holds nothing.
func TestResponseAdmission(t *testing.T) {
	srv, _ := bigResult(t, 10, 1000)
	release, err := srv.admitResponse(context.Background(), 800)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := srv.admitResponse(ctx, 500); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second read past the bound: %v, want to wait until its context ends", err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := srv.admitResponse(context.Background(), 5000) // over the bound: waits for all of it
		if err == nil {
			r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("admitted while the bound is held: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("not admitted after the room was given back")
	}
	// A request whose room never comes: 503, not a hang.
	hold, _ := srv.admitResponse(context.Background(), 1000)
	defer hold()
	req := httptest.NewRequest("GET", "/api/runs/r1/reports/2401.00001", nil)
	rctx, rcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer rcancel()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req.WithContext(rctx))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("waiting past the request's deadline: %d, want 503", rec.Code)
	}
}

func TestMemberSpan(t *testing.T) {
	for _, tt := range []struct {
		doc, key, want string
	}{
		{`{"sha256":"x","result":{"a":[1,"]}"]}}`, "result", `{"a":[1,"]}"]}`},
		{` { "result" : [ {"b":"\"}"} ] , "z":1}`, "result", `[ {"b":"\"}"} ]`},
		{`{"a":1,"result":null}`, "result", `null`},
		{`{"a":"result","b":2}`, "b", `2`},
		{`{"a":{"result":1}}`, "result", ``},
		{`["result"]`, "result", ``},
		{`{"result":"unterminated}`, "result", ``},
		{``, "result", ``},
	} {
		s, e, ok := memberSpan([]byte(tt.doc), tt.key)
		got := ""
		if ok {
			got = tt.doc[s:e]
		}
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("memberSpan(%q, %q) = %q, %v; want %q", tt.doc, tt.key, got, ok, tt.want)
		}
	}
}

// FuzzMemberSpan: no panic, the span in bounds, and on a valid JSON
// object it finds what decoding finds.
func FuzzMemberSpan(f *testing.F) {
	f.Add([]byte(`{"sha256":"x","result":{"a":[1,"]}"]}}`), "result")
	f.Add([]byte(`{"a":"\\","result":[]}`), "result")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		s, e, ok := memberSpan(data, key)
		if !ok {
			return
		}
		if s < 0 || e > len(data) || s >= e {
			t.Fatalf("span [%d,%d) of %d bytes", s, e, len(data))
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return
		}
		want, found := obj[key]
		if !found || !bytes.Equal(bytes.TrimSpace(want), data[s:e]) {
			// Duplicate keys: decoding keeps the last, memberSpan the first.
			if n := bytes.Count(data, []byte(`"`+key+`"`)); n < 2 {
				t.Fatalf("memberSpan(%q) = %q; decoding gives %q", key, data[s:e], want)
			}
		}
	})
}
