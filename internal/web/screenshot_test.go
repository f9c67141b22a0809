package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// screens are the widths the layout tests run at: a desktop window and a
// phone (390 CSS pixels, an iPhone 12 to 15).
var screens = []struct {
	name          string
	width, height int64
	phone         bool
}{
	{"desktop", 1280, 900, false},
	{"phone", 390, 844, true},
}

// shotDir is where the screenshot tests write their PNGs: the folder
// $CLAIMTRACE_SCREENSHOTS names, else a temporary one the test logs.
func shotDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("CLAIMTRACE_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// page drives one page of the layout tests.
type shotPage struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func (p shotPage) eval(expr string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// num evaluates expr to a number.
func (p shotPage) num(expr string) float64 {
	p.t.Helper()
	s := p.eval(`String(` + expr + `)`)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.t.Fatalf("%s = %q, not a number", expr, s)
	}
	return v
}

func (p shotPage) poll(what, expr string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		p.t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (p shotPage) do(a chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, a); err != nil {
		p.t.Fatal(err)
	}
}

// shot writes the viewport as name.png.
func (p shotPage) shot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	path := filepath.Join(p.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot %s", path)
}

// cspWatch records Content-Security-Policy violations in every page the
// browser opens (a script run before the page's own).
const cspWatch = `window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`

// TestScreenshots opens the run page, a report with a claim selected and
// the graph view at desktop and phone width in headless Chromium, checks
// layout facts there and writes a PNG of each.
func TestScreenshots(t *testing.T) {
	f := demoFixture(t, testToken)
	base := serveOnPort(t, f)
	dir := shotDir(t)
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			ctx := browser(t)
			var rec recorder
			rec.watch(ctx)
			defer rec.check(t)
			p := shotPage{t: t, ctx: ctx, dir: dir}
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if sc.phone {
				opts = append(opts, chromedp.EmulateMobile)
			}
			p.do(chromedp.EmulateViewport(sc.width, sc.height, opts...))
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if v := p.eval(`JSON.stringify(window.__csp || [])`); v != "[]" {
					t.Errorf("Content-Security-Policy violations: %s", v)
				}
			}()

			// The run page: the table of figures is never cut: the page
			// does not scroll sideways, the table scrolls inside its box,
			// and its last column can be scrolled to.
			p.do(chromedp.Navigate(base + "/runs/" + f.run))
			p.poll("the run page", `document.getElementById('reports') !== null`)
			if w, vw := p.num(`document.documentElement.scrollWidth`), p.num(`window.innerWidth`); w > vw {
				t.Errorf("the run page is %v px wide in a %v px window", w, vw)
			}
			box := `document.getElementById('reports-scroll')`
			if r := p.num(box + `.getBoundingClientRect().right`); r > float64(sc.width)+0.5 {
				t.Errorf("the table's box ends at %v px, past the %d px screen", r, sc.width)
			}
			if sw, tw := p.num(box+`.scrollWidth`), p.num(`document.getElementById('reports').offsetWidth`); sw+0.5 < tw {
				t.Errorf("the table (%v px) is cut by its box (%v px scrollable)", tw, sw)
			}
			heads := p.eval(`Array.from(document.querySelectorAll('#reports th')).map(th => th.textContent).join('|')`)
			for _, h := range []string{"Precision", "Recall", "PSnd", "CTran", "Reviews agree"} {
				if !strings.Contains(heads, h) {
					t.Errorf("column %q missing: %s", h, heads)
				}
			}
			p.eval(box + `.scrollLeft = 1e6; ''`)
			if r := p.num(`document.querySelector('#reports th:last-child').getBoundingClientRect().right`); r > float64(sc.width)+1 {
				t.Errorf("the last column ends at %v px after scrolling the table to its end", r)
			}
			p.eval(box + `.scrollLeft = 0; ''`)
			if p.eval(`String(getComputedStyle(document.getElementById('figure-help')).display !== 'none' && document.getElementById('figure-help').textContent.includes('PSnd'))`) != "true" {
				t.Error("PSnd, CTran and AEff are not explained in visible text on the run page")
			}
			p.shot("run-" + sc.name)

			// A report with a claim selected by a deep link: the panel is
			// in the viewport, the claim too (above the panel on a phone),
			// and the review form has no verdict chosen.
			p.do(chromedp.Navigate(base + f.reportPath() + "?claim=c5"))
			p.poll("the claim panel", `document.querySelector('#claim-panel[data-claim="c5"]') !== null`)
			p.checkSelected("c5", sc.phone)
			if got := p.eval(`document.getElementById('review-label').value`); got != "" {
				t.Errorf("the review form starts with the verdict %q chosen", got)
			}
			if w, vw := p.num(`document.documentElement.scrollWidth`), p.num(`window.innerWidth`); w > vw {
				t.Errorf("the audit view is %v px wide in a %v px window", w, vw)
			}
			p.shot("report-claim-" + sc.name)
			// Selecting another claim in the text scrolls to it and opens
			// its panel.
			p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('claim-c17').click()`))
			p.poll("c17's panel", `document.querySelector('#claim-panel[data-claim="c17"]') !== null`)
			p.checkSelected("c17", sc.phone)
			if got := p.eval(`location.search`); got != "?claim=c17" {
				t.Errorf("location after selecting c17: %q", got)
			}

			// The graph view: the drawing holds nodes and ink; a click on
			// a claim node opens that claim's panel.
			p.do(chromedp.Navigate(base + f.reportPath() + "/graph"))
			p.poll("the graph", `document.getElementById('graph').dataset.ready === 'true'`)
			if n := p.num(`Number(document.getElementById('graph').dataset.nodes)`); n < 5 {
				t.Errorf("%v nodes drawn", n)
			}
			if n := p.num(`document.querySelectorAll('#graph canvas').length`); n == 0 {
				t.Fatal("no canvas in the graph view")
			}
			inked := `(() => { let n = 0; for (const c of document.querySelectorAll('#graph canvas')) { if (!c.width || !c.height) continue;
				const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
				for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; } return n; })()`
			if n := p.num(inked); n < 500 {
				t.Errorf("the graph's canvases hold %v drawn pixels", n)
			}
			if r := p.num(`document.getElementById('graph').getBoundingClientRect().right`); r > float64(sc.width)+0.5 {
				t.Errorf("the drawing ends at %v px on a %d px screen", r, sc.width)
			}
			p.shot("graph-" + sc.name)
			at := strings.Split(p.eval(`document.getElementById('graph').dataset.claimAt`), ",")
			if len(at) != 2 {
				t.Fatalf("no claim position: %q", at)
			}
			x, _ := strconv.ParseFloat(at[0], 64)
			y, _ := strconv.ParseFloat(at[1], 64)
			left, top := p.num(`document.getElementById('graph').getBoundingClientRect().left`), p.num(`document.getElementById('graph').getBoundingClientRect().top`)
			p.do(chromedp.MouseClickXY(left+x, top+y))
			p.poll("a claim's panel from the graph", `document.querySelector('#panel #claim-panel') !== null`)
			if !inViewport(p, `document.getElementById('panel')`) {
				t.Error("the node panel is not in the viewport")
			}
			var sel struct{ Selected, Claim string }
			if err := json.Unmarshal([]byte(p.eval(`JSON.stringify({selected: document.getElementById('graph').dataset.selected, claim: document.querySelector('#panel #claim-panel').dataset.claim})`)), &sel); err != nil || sel.Selected != "c:"+sel.Claim {
				t.Errorf("clicked node %q, panel of claim %q", sel.Selected, sel.Claim)
			}
			p.shot("graph-claim-" + sc.name)
		})
	}
}

// checkSelected checks the layout with claim id selected: its panel and
// the claim are both in the viewport, and on a phone the panel is a sheet
// over the lower part with the claim above it.
func (p shotPage) checkSelected(id string, phone bool) {
	p.t.Helper()
	panel := `document.getElementById('panel')`
	claim := `document.getElementById('claim-` + id + `')`
	p.poll("the claim to scroll into view", `(() => { const r = `+claim+`.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`)
	if !inViewport(p, panel) {
		p.t.Errorf("%s: the panel is not in the viewport", id)
	}
	if !strings.Contains(p.eval(claim+`.className`), "selected") {
		p.t.Errorf("%s is not marked selected", id)
	}
	if phone {
		pt, cb, h := p.num(panel+`.getBoundingClientRect().top`), p.num(claim+`.getBoundingClientRect().bottom`), p.num(`innerHeight`)
		if pt < h*0.4 || p.num(panel+`.getBoundingClientRect().bottom`) > h+0.5 {
			p.t.Errorf("%s: the panel spans %v..%v px of a %v px screen; want a sheet over the lower part", id, pt, p.num(panel+`.getBoundingClientRect().bottom`), h)
		}
		if cb > pt {
			p.t.Errorf("%s: the claim ends at %v px, under the panel (from %v px)", id, cb, pt)
		}
	}
}

// inViewport reports whether the element expr names shows at least 100 px
// of height inside the viewport.
func inViewport(p shotPage, expr string) bool {
	return p.eval(`(() => { const r = `+expr+`.getBoundingClientRect(); return String(r.width > 0 && Math.min(r.bottom, innerHeight) - Math.max(r.top, 0) >= 100 && r.left >= -0.5 && r.right <= innerWidth + 0.5); })()`) == "true"
}
