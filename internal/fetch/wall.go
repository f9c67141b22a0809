package fetch

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// wallInput is what wall detection looks at.
type wallInput struct {
	status int
	title  string // the page's own title
	text   string // all visible text
	main   string // the extracted main text
	raw    []byte // the raw HTML, read for challenge markers; nil for text
}

// Word counts under which a page is short enough for a phrase to be its
// point rather than a passing mention. Walls are short; an article about
// captchas is not.
const (
	shortPage   = 300
	paywallPage = 1500
	markerPage  = 1000
	emptyPage   = 20
)

// Phrases, lowercased. Apostrophes are normalized to "'" before matching.
var (
	botTitlePhrases = []string{
		"just a moment", "attention required", "checking your browser", "access denied",
		"security verification", "are you a robot", "human verification", "pardon our interruption",
		"one more step", "verify you are human", "request rejected", "you have been blocked",
		"bot verification", "captcha", "ddos-guard", "robot check",
	}
	botTextPhrases = []string{
		"checking your browser", "verify you are human", "verifying you are human",
		"verifies you are not a bot", "not a robot", "are you a robot", "security verification",
		"enable javascript and cookies to continue", "please enable javascript", "please turn javascript on",
		"javascript is disabled", "unusual traffic from your computer", "ddos protection",
		"access denied", "you don't have permission to access", "request unsuccessful",
		"pardon our interruption", "sorry, you have been blocked", "press & hold",
		"complete the security check", "performance & security by cloudflare", "captcha",
		"automated access", "bot detection",
	}
	loginPhrases = []string{
		"sign in to continue", "log in to continue", "login to continue", "please log in",
		"please sign in", "you must be logged in", "you need to sign in", "login required",
		"sign in required", "sign in to view", "log in to view",
	}
	paywallPhrases = []string{
		"subscribe to continue", "subscribe to read", "subscribers only", "only available to subscribers",
		"purchase this article", "buy this article", "purchase access", "rent this article",
		"log in to read", "sign in to read", "to read the full article", "to read the full story",
		"to continue reading", "get full access", "access through your institution",
		"you have reached your free article limit", "read the full story with a subscription",
		"this article is for subscribers", "unlock this article", "member-only story",
		"create an account to read", "purchase pdf", "buy article pdf",
	}
	errorTitlePhrases = []string{
		"page not found", "not found", "error 403", "403 forbidden",
		"internal server error", "service unavailable", "bad gateway", "page does not exist",
		"page doesn't exist", "no longer available", "error 500", "server error",
	}
	errorTextPhrases = []string{
		"page not found", "404 not found", "error 404", "404 error", "page does not exist",
		"page doesn't exist", "page cannot be found", "page could not be found",
		"this page is no longer available", "this page has been removed", "content has been removed",
		"internal server error", "503 service unavailable", "502 bad gateway", "403 forbidden",
		"we can't find that page", "we couldn't find that page", "the requested url was not found",
		"the page you requested", "the page you are looking for",
	}
	// Markers of challenge pages in the raw HTML (scripts, ids, forms).
	// Strong markers appear only on challenges; weak ones also appear on
	// ordinary pages (Cloudflare's bot-detection script, captcha widgets
	// in comment forms), so they count only on short pages.
	strongBotMarkers = []string{
		"cf-browser-verification", "cf_chl_opt", "cf-chl-", "_incapsula_resource", "px-captcha",
		"captcha-delivery.com", "__ddg", "awswaf-captcha", "recaptcha/challengepage", "/sec/cp_challenge",
	}
	weakBotMarkers = []string{
		"/cdn-cgi/challenge-platform/", "g-recaptcha", "h-captcha", "hcaptcha.com",
		"challenges.cloudflare.com", "perimeterx",
	}
)

// httpCodeTitle matches an HTTP error code standing alone in a title
// ("404", "Error 503"), not inside a number such as an arXiv id.
var httpCodeTitle = lazyregexp.New(`(^|[^\w.])(400|401|403|404|410|429|500|502|503|504)([^\w.]|$)`)

// detectWall returns the wall a page shows, or "".
func detectWall(in wallInput) string {
	title := normalizePhrase(in.title)
	text := normalizePhrase(head(in.text, 4000))
	// Thresholds only need counts up to the largest of them.
	words := wordCountUpTo(in.text, paywallPage)
	mainWords := wordCountUpTo(in.main, paywallPage)

	// Markers count only on short pages: the raw HTML is not searched on
	// long ones.
	var markers botMarkers
	if words < max(markerPage, shortPage) {
		markers = rawMarkers(in.raw)
	}

	switch {
	case markers.strong && words < markerPage:
		return WallBot
	case markers.weak && words < shortPage:
		return WallBot
	case words < shortPage && (containsAny(title, botTitlePhrases) || containsAny(text, botTextPhrases)):
		return WallBot
	case in.status == http.StatusUnauthorized:
		return WallLogin
	case words < shortPage && (containsAny(title, loginPhrases) || containsAny(text, loginPhrases)):
		return WallLogin
	case mainWords < paywallPage && containsAny(text, paywallPhrases):
		return WallPaywall
	case in.status >= 400:
		return WallError
	case words < shortPage && (containsAny(title, errorTitlePhrases) || httpCodeTitle.MatchString(title) ||
		containsAny(head(text, 300), errorTextPhrases)):
		return WallError
	case mainWords < emptyPage && words < emptyPage:
		return WallEmpty
	}
	return ""
}

// botMarkers records which challenge markers the raw HTML carries.
type botMarkers struct{ strong, weak bool }

// rawMarkers looks for challenge markers in the first 256 KiB of raw HTML.
func rawMarkers(raw []byte) botMarkers {
	low := bytes.ToLower(raw[:min(len(raw), 256<<10)])
	var m botMarkers
	for _, s := range strongBotMarkers {
		if bytes.Contains(low, []byte(s)) {
			m.strong = true
		}
	}
	for _, s := range weakBotMarkers {
		if bytes.Contains(low, []byte(s)) {
			m.weak = true
		}
	}
	return m
}

func normalizePhrase(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("’", "'", "‘", "'", "…", "...", "\u00a0", " ").Replace(s)
}

func containsAny(s string, phrases []string) bool {
	if s == "" {
		return false
	}
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// head returns at most n bytes of s, cut at a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
