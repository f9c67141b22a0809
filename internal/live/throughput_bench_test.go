package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/cputime"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// BenchmarkRecording measures the live API as agents use it: 8 clients,
// each recording its own sessions over HTTP (the real handler, a real
// client, SQLite), 10,000 records in all, with the offline contradiction
// detector on (the default of claimtrace mcp) and off. Sources are
// AttributionBench evidence passages as excerpts (the passages an agent
// quoted, 1.5 KB on average), claims the pairs' claims, judged by the
// offline judge. Two workloads:
//
//   - sources: every record is a source (sessions of 625), what the
//     detector works on;
//   - mixed: a source, then a claim citing it, and so on (625 of each a
//     session), which adds the judge's work on every other record.
//
// It reports the records per second of the whole run, the 99th
// percentile and the largest of one record's latency, and the CPU time
// of the process (server and clients) a record, which other work on a
// shared machine does not inflate.
//
//	go test ./internal/live -run '^$' -bench Recording -benchtime 1x
func BenchmarkRecording(b *testing.B) {
	const clients, records = 8, 10000
	pairs := allAttribution(b)
	for _, workload := range []string{"sources", "mixed"} {
		for _, bc := range []struct {
			name     string
			detector prov.Detector
		}{{"detector", prov.Offline{}}, {"no-detector", nil}} {
			b.Run(workload+"/"+bc.name, func(b *testing.B) {
				var lat []time.Duration
				var elapsed, cpu time.Duration
				for run := 0; b.Loop(); run++ {
					svc := testService(b, Options{Detector: bc.detector})
					srv := httptest.NewServer(http.StripPrefix("/api/live", Handler(svc, testToken)))
					start := cputime.Process()
					got, took := recordSessions(b, srv, fmt.Sprintf("run%d", run), workload, clients, records/clients, pairs)
					cpu += cputime.Process() - start
					srv.Close()
					lat = append(lat, got...)
					elapsed += took
				}
				slices.Sort(lat)
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "records/s")
				b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-µs/record")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			})
		}
	}
}

// allAttribution returns the shared AttributionBench pairs.
func allAttribution(tb testing.TB) []labels.Pair {
	tb.Helper()
	pairs, err := labels.ReadFile(filepath.Join(sharedtest.Dir(tb, "labels/attributionbench"), "dev.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	return pairs
}

// recordSessions has clients record perClient records each in sessions of
// their own (of 1,250 records, or 625 for the sources workload, within
// the default limit of a session's sources), concurrently, and returns
// every record's latency and the wall-clock time of the whole.
func recordSessions(tb testing.TB, srv *httptest.Server, prefix, workload string, clients, perClient int, pairs []labels.Pair) ([]time.Duration, time.Duration) {
	tb.Helper()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = clients
	post := func(path string, body any) error {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/live"+path, bytes.NewReader(data))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("POST %s: %s: %s", path, resp.Status, answer)
		}
		return nil
	}
	session := 1250
	if workload == "sources" {
		session = 625
	}
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sid string
			for i := range perClient {
				k := i % session // the record's place in its session
				if k == 0 {
					sid = fmt.Sprintf("%s-agent%d-%d", prefix, c, i/session)
					if errs[c] = post("/sessions", OpenInput{ID: sid, Query: "bench"}); errs[c] != nil {
						return
					}
				}
				var path string
				var body any
				switch {
				case workload == "sources":
					p := pairs[(c*perClient+i)%len(pairs)]
					path, body = "/sessions/"+sid+"/sources", SourceInput{ID: fmt.Sprintf("s%d", k), Title: "evidence " + p.ID, Excerpt: cutUTF8(p.Evidence, MaxText)}
				case k%2 == 0:
					p := pairs[(c*perClient/2+i/2)%len(pairs)]
					path, body = "/sessions/"+sid+"/sources", SourceInput{ID: fmt.Sprintf("s%d", k/2), Title: "evidence " + p.ID, Excerpt: cutUTF8(p.Evidence, MaxText)}
				default:
					p := pairs[(c*perClient/2+i/2)%len(pairs)]
					path, body = "/sessions/"+sid+"/claims", ClaimInput{Statement: p.Claim, Supports: []string{fmt.Sprintf("s%d", k/2)}}
				}
				t := time.Now()
				if errs[c] = post(path, body); errs[c] != nil {
					return
				}
				lat[c] = append(lat[c], time.Since(t))
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return slices.Concat(lat...), took
}
