package web

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/claimtrace/claimtrace/internal/httpserve"
)

// chromiumPath returns a Chromium or Chrome binary on PATH, or skips.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (looked for chromium, chromium-browser, google-chrome): browser test skipped; apt-get install chromium to run it")
	return ""
}

// browser starts headless Chromium with a fresh profile and the flags that
// keep it off the network (the machine's closed network refuses background
// connections, and a test must not make any).
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := chromiumPath(t)
	profile, err := os.MkdirTemp("", "claimtrace-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Chromium's children may write to the profile for a moment
		// after the browser exits.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// serveOnPort serves f's server on a free loopback port with Serve, as
// `claimtrace serve --addr 127.0.0.1:0` does, and returns its base URL.
func serveOnPort(t *testing.T, f *fixture) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpserve.Serve(ctx, ln, f.srv, httpserve.Limits{}, 5*time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// recorder keeps the page's dialogs and uncaught exceptions; it dismisses
// dialogs so an alert cannot block the test.
type recorder struct {
	mu         sync.Mutex
	dialogs    []string
	exceptions []string
}

func (r *recorder) watch(ctx context.Context) {
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			r.mu.Lock()
			r.dialogs = append(r.dialogs, ev.Type.String()+": "+ev.Message)
			r.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			r.mu.Lock()
			r.exceptions = append(r.exceptions, ev.ExceptionDetails.Text)
			r.mu.Unlock()
		}
	}()
}

func (r *recorder) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.dialogs) > 0 {
		t.Errorf("dialogs opened: %q", r.dialogs)
	}
	if len(r.exceptions) > 0 {
		t.Errorf("uncaught exceptions: %q", r.exceptions)
	}
}

// TestBrowserAudit drives the audit view of the hostile report in headless
// Chromium: the payloads stay text (no dialog, no injected node), clicking
// a claim shows its evidence highlighted in the source text, j and k move
// between claims, the time spent is posted and stored, and reviews saved
// from the page under two reviewers' names are listed.
func TestBrowserAudit(t *testing.T) {
	ctx := browser(t)
	f := hostileFixture(t, testToken)
	base := serveOnPort(t, f)
	l, err := f.srv.loadReport(context.Background(), f.run, f.task)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("testdata", "hostile", "hostile.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	rec.watch(ctx)
	defer rec.check(t)
	// Headless windows are never focused; the view counts time only while
	// the page has focus.
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+f.reportPath())); err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	poll := func(what, expr string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}

	// Inert: the report text is text, the only script is ours.
	if got, want := wordsOf(eval(`document.getElementById('report').textContent`)), visibleWords(string(text)); got != want {
		t.Errorf("report text in the DOM differs from the file's visible text:\n%s", got)
	}
	if got := eval(`String(document.scripts.length) + ' ' + document.scripts[0].getAttribute('src')`); got != "1 /static/audit.js" {
		t.Errorf("scripts in the page: %s", got)
	}
	if got := eval(`String(document.querySelectorAll('main img, main script, [onerror], a[href^="javascript:"]').length)`); got != "0" {
		t.Errorf("%s injected nodes in the page", got)
	}

	// The token, checked by the page against the write API.
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("token"), testToken),
		chromedp.Click(chromedp.ID("token-save")),
	); err != nil {
		t.Fatal(err)
	}
	poll("the token to be accepted", `document.getElementById('token-status').textContent.includes('accepted')`)

	// Select c1: its panel shows the evidence highlighted in the source.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("claim-c1"))); err != nil {
		t.Fatal(err)
	}
	poll("c1's panel", `document.querySelector('#claim-panel[data-claim="c1"] pre.source-text mark.evidence') !== null`)
	if got, want := eval(`document.querySelector('#claim-panel mark.evidence').textContent`), l.Res.Claims[0].Verdicts[0].Evidence; got != want {
		t.Errorf("highlighted evidence %q, want %q", got, want)
	}
	if got := eval(`document.getElementById('claim-c1').className`); !strings.Contains(got, "selected") {
		t.Errorf("c1 class %q: not marked selected", got)
	}
	if got := eval(`location.search`); got != "?claim=c1" {
		t.Errorf("location.search = %q after selecting c1", got)
	}
	poll("time to accrue on c1", `document.getElementById('claim-timer').textContent === '2 s'`)

	// j selects the next claim and saves the time spent on c1.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	poll("c2's panel", `document.querySelector('#claim-panel[data-claim="c2"]') !== null`)
	poll("the timing post", `Number(document.getElementById('audit').dataset.saved || 0) >= 1`)
	units, err := f.st.Units(context.Background(), f.run, UnitAuditTime)
	if err != nil {
		t.Fatal(err)
	}
	var c1 Timing
	for _, u := range units {
		var tm Timing
		if json.Unmarshal(u.Data, &tm) == nil && tm.Claim == "c1" {
			c1 = tm
		}
	}
	if c1.Seconds < 1.5 || c1.Seconds > 30 || c1.ReportSHA256 != l.Res.SHA256 {
		t.Errorf("stored time on c1: %+v; want about 2 s on this report", c1)
	}
	if got := eval(`document.getElementById('aeff').textContent`); !strings.Contains(got, "minutes per claim audited") {
		t.Errorf("the page does not update the empirical AEff: %q", got)
	}

	// k goes back; a review saved from the panel under a reviewer's name
	// is listed in it, and the name is remembered (the token is not).
	if err := chromedp.Do(ctx, chromedp.KeyEvent("k")); err != nil {
		t.Fatal(err)
	}
	poll("c1's panel again", `document.querySelector('#claim-panel[data-claim="c1"] #review-form') !== null`)
	const ada = `Ada <img src=x onerror=alert(9)>`
	const note = `<img src=x onerror=alert(7)> the advisory says "naive viewers"`
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("review-reviewer"), ada),
		chromedp.SetValue(chromedp.ID("review-label"), "unsupported"),
		chromedp.SendKeys(chromedp.ID("review-note"), note),
		chromedp.Click(chromedp.CSS("#review-form button[type=submit]")),
	); err != nil {
		t.Fatal(err)
	}
	poll("the review to show", `document.querySelector('#claim-panel[data-claim="c1"][data-reviewed="true"] li.review-item') !== null`)
	if got := eval(`document.getElementById('claim-c1').className`); got != "claim st-unsupported reviewed selected" {
		t.Errorf("c1 class after the review: %q", got)
	}
	listed := `Array.from(document.querySelectorAll('#reviews li.review-item')).map(li => li.dataset.reviewer + ' | ' + li.querySelector('.reviewer').textContent + ' | ' + li.dataset.label + ' | ' + (li.querySelector('.review-note') || {}).textContent).join('\n')`
	if got, want := eval(listed), ada+" | "+ada+" | unsupported | "+note; got != want {
		t.Errorf("reviews listed in the panel:\n%s\nwant\n%s", got, want)
	}
	if got := eval(`String(document.querySelectorAll('main img, [onerror]').length)`); got != "0" {
		t.Errorf("the review injected %s nodes", got)
	}
	if got := eval(`localStorage.getItem('claimtrace-reviewer') + ' | ' + localStorage.getItem('claimtrace-token') + ' | ' + (sessionStorage.getItem('claimtrace-token') === ` + "`" + testToken + "`" + `)`); got != ada+" | null | true" {
		t.Errorf("storage: %q; want the name in localStorage, the token in sessionStorage only", got)
	}
	stored, err := f.st.Reviews(context.Background(), f.run)
	if err != nil {
		t.Fatal(err)
	}
	var found int
	for _, rv := range stored {
		if rv.Task == f.task && rv.Claim == "c1" && rv.Reviewer == ada && strings.Contains(string(rv.Data), `"label":"unsupported"`) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("stored reviews of c1 by the reviewer: %d, want 1 (all: %d)", found, len(stored))
	}

	// Back on c1, the form holds Ada's review, ready to edit.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	poll("c2's panel", `document.querySelector('#claim-panel[data-claim="c2"]') !== null`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("k")); err != nil {
		t.Fatal(err)
	}
	poll("c1's panel, third time", `document.querySelector('#claim-panel[data-claim="c1"] #review-form') !== null`)
	form := `[f.reviewer.value, f.label.value, f.note.value].join(' | ')`
	if got, want := eval(`(f => `+form+`)(document.getElementById('review-form').elements)`), ada+" | unsupported | "+note; got != want {
		t.Errorf("review form %q, want %q", got, want)
	}

	// A second reviewer disagrees: both are listed and the claim is
	// disputed, shown in the pipeline's colour.
	eval(`document.getElementById('review-note').value = ''`)
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("review-reviewer"), "Grace"),
		chromedp.SetValue(chromedp.ID("review-label"), "supported"),
		chromedp.Click(chromedp.CSS("#review-form button[type=submit]")),
	); err != nil {
		t.Fatal(err)
	}
	poll("two reviews", `document.querySelectorAll('#claim-panel[data-claim="c1"] li.review-item').length === 2`)
	if got := eval(`document.getElementById('claim-c1').className`); got != "claim st-supported reviewed disputed selected" {
		t.Errorf("c1 class after two disagreeing reviews: %q", got)
	}
	if got := eval(`localStorage.getItem('claimtrace-reviewer')`); got != "Grace" {
		t.Errorf("remembered reviewer %q, want Grace", got)
	}
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("browser test timed out")
	}
}

// TestBrowserStaticExport opens an exported report page from disk in
// headless Chromium: no panel is shown until a claim is clicked, clicking
// one shows that claim's panel alone, with its evidence, and the page has
// no script.
func TestBrowserStaticExport(t *testing.T) {
	ctx := browser(t)
	f := demoFixture(t, "")
	out, err := f.srv.Export(context.Background(), f.run, t.TempDir(), nil)
	if err != nil || len(out.Reports) != 1 {
		t.Fatalf("export = %+v, %v", out, err)
	}
	var rec recorder
	rec.watch(ctx)
	defer rec.check(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+out.Reports[0])); err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	shown := `Array.from(document.querySelectorAll('.static-panel')).filter(p => getComputedStyle(p).display !== 'none').map(p => p.id.replace(/-body$/, '')).join(',')`
	if got := eval(shown); got != "" {
		t.Errorf("panels shown before any click: %q", got)
	}
	if got := eval(`String(document.scripts.length)`); got != "0" {
		t.Errorf("%s scripts in the static page", got)
	}
	// A short window, scrolled to the claim: selecting it must not move
	// the page (a :target on the panel itself scrolled to it).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(900, 320)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.ID("claim-c9"))); err != nil {
		t.Fatal(err)
	}
	before := eval(`String(window.scrollY)`)
	if before == "0" {
		t.Fatalf("the page did not scroll to claim c9: the test cannot see a jump")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("claim-c9"))); err != nil {
		t.Fatal(err)
	}
	if after := eval(`String(window.scrollY)`); after != before {
		t.Errorf("selecting claim c9 scrolled the page from %s to %s", before, after)
	}
	if got := eval(shown); got != "panel-c9" {
		t.Errorf("panels shown after clicking c9: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("claim-c5"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(shown); got != "panel-c5" {
		t.Errorf("panels shown after clicking c5: %q", got)
	}
	if got := eval(`document.getElementById('panel-c5-body').innerText`); !strings.Contains(got, "Claim c5") || !strings.Contains(got, "Sources and verdicts") {
		t.Errorf("panel c5: %.300s", got)
	}
	if got := eval(`String(document.querySelectorAll('#panel-c5-body mark.evidence').length)`); got == "0" {
		t.Errorf("no evidence highlighted in panel c5")
	}
}
