package live

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/store"
	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// FuzzReplay feeds stored logs to replay: one operation a line after a valid
// open. It must never panic, and a log it accepts must give a valid graph
// whose claims all have their verdicts' sources.
func FuzzReplay(f *testing.F) {
	// Seeds: the log of a real session, whole and cut.
	svc := testService(f, Options{})
	sid := mustOpen(f, svc, "fz")
	seed(f, svc, sid)
	mustClaim(f, svc, sid, ClaimInput{ID: "c1", Statement: claimGain, Supports: []string{"s1", "r1"}})
	mustClaim(f, svc, sid, ClaimInput{ID: "c1", Statement: claimWrongNum, Supports: []string{"s1"}, Revise: true})
	mustClaim(f, svc, sid, ClaimInput{ID: "c2", Statement: claimUnrelated, Supports: []string{"s3"}})
	svc.AddEdge(context.Background(), sid, EdgeInput{From: "s2", To: "c1", Rel: "contradicts"})
	svc.Withdraw(context.Background(), sid, "c2")
	svc.Close(context.Background(), sid)
	units, err := svc.st.Units(context.Background(), runID(sid), OpUnit)
	if err != nil {
		f.Fatal(err)
	}
	var lines [][]byte
	for _, u := range units[1:] {
		lines = append(lines, u.Data)
	}
	f.Add(bytes.Join(lines, []byte("\n")))
	f.Add(bytes.Join(lines[:4], []byte("\n")))
	f.Add([]byte(`{"seq":1,"op":"edge","edge":{"edge":{"from":"s1","to":"s1","rel":"supports"}}}`))
	f.Add([]byte(`{"seq":1,"op":"claim","claim":{"claim":{"id":"c"},"revise":true,"edges":null}}`))
	open := units[0]
	f.Fuzz(func(t *testing.T, data []byte) {
		us := []store.Unit{open}
		for i, line := range bytes.Split(data, []byte("\n")) {
			us = append(us, store.Unit{Key: opKey(i + 1), Data: line})
		}
		ss, err := replay("fz", us)
		if err != nil {
			return
		}
		if err := ss.g.Validate(); err != nil {
			t.Fatalf("replay accepted a log giving an invalid graph: %v", err)
		}
		for k := range ss.verdicts {
			if _, ok := ss.sources[k.from]; !ok {
				t.Fatalf("verdict from %q, which is no source", k.from)
			}
		}
	})
}

// FuzzAPI posts arbitrary bodies to the write endpoints of one session. The
// API must answer with JSON and a status of its table, never 500, and the
// session's graph must stay valid.
func FuzzAPI(f *testing.F) {
	svc := newService(f, openStore(f, storetest.SQLiteDSN(f)), Options{})
	sid := mustOpen(f, svc, "fz")
	seed(f, svc, sid)
	srv := httptest.NewServer(Handler(svc, testToken))
	f.Cleanup(srv.Close)
	for _, s := range []struct {
		path uint8
		body string
	}{
		{0, `{"statement":"` + claimGain + `","supports":["s1","r1"]}`},
		{0, `{"id":"c1","statement":"x","supports":["s1"],"revise":true,"start":3,"end":9}`},
		{1, `{"title":"t","excerpt":"` + excerptNoisy + `"}`},
		{1, `{"url":"https://example.org/a b","doi":"doi:10.1/x"}`},
		{2, `{"inference":"i","type":"Synthesis","inputs":["s1","r0"]}`},
		{3, `{"from":"s2","to":"c1","rel":"contradicts"}`},
		{3, `{"from":"r1","to":"c1","rel":"supports","strength":1e308}`},
		{4, ``},
	} {
		f.Add(s.path, []byte(s.body))
	}
	paths := []string{"claims", "sources", "reasoning", "edges", "claims/c1"}
	f.Fuzz(func(t *testing.T, path uint8, body []byte) {
		method, p := "POST", paths[int(path)%len(paths)]
		if strings.Contains(p, "/") {
			method = "DELETE"
		}
		req, _ := http.NewRequest(method, srv.URL+"/sessions/"+sid+"/"+p, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %v", method, p, err)
		}
		switch resp.StatusCode {
		case 200, 201, 400, 404, 413, 422:
		default:
			t.Fatalf("%s %s %q: status %d: %v", method, p, body, resp.StatusCode, v)
		}
		g, err := svc.Graph(context.Background(), sid)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("graph invalid after %s %s %q: %v", method, p, body, err)
		}
	})
}
