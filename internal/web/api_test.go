package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/eval"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, body)
	}
	return v
}

func TestReadAPI(t *testing.T) {
	f := demoFixture(t, "")
	ctx := context.Background()
	l, err := f.srv.loadReport(ctx, f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	api := "/api/runs/" + f.run

	code, body, hdr := f.get(t, "/api/runs")
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET /api/runs: %d, %q, %q", code, hdr.Get("Content-Type"), hdr.Get("Cache-Control"))
	}
	runs := decode[RunsResponse](t, body)
	if len(runs.Runs) != 1 || runs.Runs[0].ID != f.run || runs.Runs[0].Kind != "eval" || runs.Writable {
		t.Errorf("runs = %+v", runs)
	}

	code, body, _ = f.get(t, api+"/reports")
	if code != http.StatusOK {
		t.Fatalf("GET reports: %d %s", code, body)
	}
	reports := decode[ReportsResponse](t, body)
	recall := l.Res.Citation.Recall
	want := []ReportLine{{Task: f.task, Status: "done", Domain: l.Res.Domain, Claims: l.Res.Stats.Claims, Cited: l.Res.Stats.CitedClaims,
		Precision: l.Res.Citation.Precision, PrecisionVerifiable: l.Res.Citation.PrecisionVerifiable, Flagged: l.Res.Citation.Flagged, Recall: &recall, MatchRate: l.Res.Cited.MatchRate, Accuracy: l.Res.NonCited.Accuracy,
		PCov: l.Res.AAR.PCov, PSnd: l.Res.AAR.PSnd, CTran: l.Res.AAR.CTran, AEffProxy: l.Res.AAR.AEffProxy}}
	if diff := cmp.Diff(want, reports.Reports); diff != "" {
		t.Errorf("report lines (-want +got):\n%s", diff)
	}
	if reports.Run.ID != f.run || reports.Effort.ClaimsAudited != 0 || reports.Effort.MinutesPerClaim != nil {
		t.Errorf("run %q, effort %+v; want the run and no audit yet", reports.Run.ID, reports.Effort)
	}

	// One report: the stored result, byte for byte.
	code, body, _ = f.get(t, api+"/reports/"+f.task)
	if code != http.StatusOK {
		t.Fatalf("GET report: %d", code)
	}
	if strings.TrimSpace(body) != string(l.Raw) {
		t.Errorf("the API does not serve the stored result as is")
	}
	got := decode[eval.Result](t, body)
	if diff := cmp.Diff(*l.Res, got); diff != "" {
		t.Errorf("result (-stored +served):\n%s", diff)
	}

	// The graph: native, PROV-JSON and PROV-JSONLD.
	code, body, _ = f.get(t, api+"/graphs/"+f.task)
	if code != http.StatusOK {
		t.Fatalf("GET graph: %d", code)
	}
	g, err := prov.Unmarshal([]byte(body))
	if err != nil {
		t.Fatalf("native graph: %v", err)
	}
	if len(g.Claims) != len(l.Res.Claims) {
		t.Errorf("graph has %d claims, the report %d", len(g.Claims), len(l.Res.Claims))
	}
	code, body, _ = f.get(t, api+"/graphs/"+f.task+"?format=prov")
	if code != http.StatusOK {
		t.Fatalf("GET PROV graph: %d", code)
	}
	pg, err := provjson.Unmarshal([]byte(body))
	if err != nil {
		t.Fatalf("PROV-JSON graph: %v", err)
	}
	if len(pg.Claims) != len(g.Claims) || len(pg.Sources) != len(g.Sources) || len(pg.Edges) != len(g.Edges) {
		t.Errorf("PROV-JSON graph: %d claims %d sources %d edges, native %d %d %d",
			len(pg.Claims), len(pg.Sources), len(pg.Edges), len(g.Claims), len(g.Sources), len(g.Edges))
	}
	code, body, hdr = f.get(t, api+"/graphs/"+f.task+"?format=jsonld")
	var ld map[string]any
	if code != http.StatusOK || hdr.Get("Content-Type") != "application/ld+json" || json.Unmarshal([]byte(body), &ld) != nil || ld["@context"] == nil {
		t.Errorf("PROV-JSONLD: %d %q, @context %v", code, hdr.Get("Content-Type"), ld["@context"])
	}

	code, body, _ = f.get(t, api+"/reports/"+f.task+"/audit")
	if code != http.StatusOK {
		t.Fatalf("GET audit: %d", code)
	}
	audit := decode[AuditResponse](t, body)
	if audit.Task != f.task || audit.ReportSHA256 != l.Res.SHA256 || len(audit.Timings) != 0 || len(audit.Reviews) != 0 {
		t.Errorf("audit = %+v; want the report's sha and no records", audit)
	}

	for _, tt := range []struct {
		path string
		code int
		want string
	}{
		{api + "/graphs/" + f.task + "?format=dot", http.StatusBadRequest, "want native, prov or jsonld"},
		{api + "/graphs/nope", http.StatusNotFound, "not found"},
		{api + "/reports/nope", http.StatusNotFound, "not found"},
		{"/api/runs/nope/reports", http.StatusNotFound, "not found"},
		{"/api/nothing/here", http.StatusNotFound, "no such API endpoint"},
		{api + "/reports/a%2Fb", http.StatusBadRequest, "without slashes"},
	} {
		code, body, _ := f.get(t, tt.path)
		e := decode[apiError](t, body)
		if code != tt.code || e.Status != tt.code || !strings.Contains(e.Error, tt.want) {
			t.Errorf("GET %s: %d %+v, want %d with %q", tt.path, code, e, tt.code, tt.want)
		}
	}
}
