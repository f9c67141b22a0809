package biblio

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
)

// CanonicalURL returns the canonical form of a cited URL, used to recognise
// two spellings of one link and as the identity of a work without an
// identifier. It never merges distinct works: every query parameter that may
// identify a page is kept; only known tracking parameters are dropped.
//
// The canonical form:
//   - scheme https (http and https, and scheme-less "www.…" links, are one);
//   - host lowercased, without "www.", a trailing dot, user info or a default
//     port; dx.doi.org is doi.org, youtu.be/ID is youtube.com/watch?v=ID,
//     en.m.wikipedia.org is en.wikipedia.org, export.arxiv.org is arxiv.org;
//   - path with percent-escapes of unreserved characters, sub-delimiters, ':'
//     and '@' decoded ("%3A" becomes ":"), other escapes in upper case,
//     non-ASCII characters percent-encoded, trailing slashes removed; a
//     doi.org path is lowercased (DOIs are case-insensitive);
//   - query parameters minus tracking ones (see isTracking), sorted by key then
//     value, with "&amp;" read as "&";
//   - no fragment, unless it is a client-side route ("#/…", "#!…");
//   - trailing punctuation (".,;:!?'\"*", full-width CJK punctuation) and
//     unbalanced closing brackets removed first, as when a URL ends a sentence.
//
// "doi:10.…" becomes https://doi.org/10.…. Other schemes, and strings without
// a plausible host, are an error wrapping claimtrace.ErrInvalid.
func CanonicalURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	s = strings.TrimPrefix(s, "<")
	s = strings.TrimSuffix(s, ">")
	s = strings.ReplaceAll(s, "&amp;", "&")
	s = TrimURLTail(s)
	if s == "" {
		return "", fmt.Errorf("canonical url %q: empty: %w", raw, claimtrace.ErrInvalid)
	}
	low := asciiLower(s)
	var rest string
	switch {
	case strings.HasPrefix(low, "doi:"):
		d := DOI(s)
		if d == "" {
			return "", fmt.Errorf("canonical url %q: no doi after doi: %w", raw, claimtrace.ErrInvalid)
		}
		return CanonicalURL("https://doi.org" + escapePath("/"+d, true))
	case strings.HasPrefix(low, "https://"):
		rest = s[len("https://"):]
	case strings.HasPrefix(low, "http://"):
		rest = s[len("http://"):]
	case strings.HasPrefix(low, "//"):
		rest = s[2:]
	case !strings.Contains(low, "://") && looksLikeHost(s):
		rest = s
	default:
		return "", fmt.Errorf("canonical url %q: not an http(s) url: %w", raw, claimtrace.ErrInvalid)
	}
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	host, err := canonicalHost(rest[:authEnd])
	if err != nil {
		return "", fmt.Errorf("canonical url %q: %w", raw, err)
	}
	tail := rest[authEnd:]
	var path, query, frag string
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		tail, frag = tail[:i], tail[i+1:]
	}
	if i := strings.IndexByte(tail, '?'); i >= 0 {
		tail, query = tail[:i], tail[i+1:]
	}
	path = escapePath(tail, true)
	if host == "doi.org" {
		// Lowercase the DOI, then restore the upper-case escapes.
		path = escapePath(strings.ToLower(path), true)
	}
	params := splitQuery(query)
	if id := strings.Trim(path, "/"); host == "youtu.be" && id != "" && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		host, path = "youtube.com", "/watch"
		params = append(params, param{key: "v", value: id, hasValue: true})
	}
	params = dropTracking(host, params)
	path = strings.TrimRight(path, "/")

	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString("https://")
	b.WriteString(host)
	b.WriteString(path)
	if len(params) > 0 {
		b.WriteByte('?')
		for i, p := range params {
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(p.key)
			if p.hasValue {
				b.WriteByte('=')
				b.WriteString(p.value)
			}
		}
	}
	if frag != "" && (frag[0] == '/' || frag[0] == '!') {
		b.WriteByte('#')
		b.WriteString(escapePath(frag, false))
	}
	// Dropping a fragment or a tracking parameter can leave punctuation at
	// the end; canonicalize the shorter string so the form is a fixed point.
	out := b.String()
	if t := TrimURLTail(out); t != out {
		return CanonicalURL(t)
	}
	return out, nil
}

// TrimURLTail removes what commonly follows a URL in prose but is not part of
// it: trailing ".,;:!?'\"*", full-width CJK punctuation, and closing brackets
// that have no opening partner inside the URL (so Wikipedia's
// "…/Python_(programming_language)" keeps its parenthesis, while
// "(see https://x.org/a)" loses the last one).
func TrimURLTail(s string) string {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		switch r {
		case '.', ',', ';', ':', '!', '?', '\'', '"', '*', '，', '。', '；', '：', '！', '？', '、', '…', '”', '’', '“', '‘', '」', '』', '】', '》', '〉', '>':
			s = s[:len(s)-size]
			continue
		case ')', ']', '}', '）':
			open := map[rune]string{')': "(", ']': "[", '}': "{", '）': "（"}[r]
			if strings.Count(s, open) < strings.Count(s, string(r)) {
				s = s[:len(s)-size]
				continue
			}
		}
		return s
	}
	return s
}

// looksLikeHost reports whether a scheme-less string starts with a host name
// ("www.example.org/…", "arxiv.org/abs/…").
func looksLikeHost(s string) bool {
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	h := s[:end]
	if !strings.Contains(h, ".") || strings.ContainsAny(h, " @:") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(h)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// canonicalHost normalizes the authority part of a URL.
func canonicalHost(auth string) (string, error) {
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	host, port := auth, ""
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i >= 0 {
			host, port = host[:i+1], strings.TrimPrefix(host[i+1:], ":")
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i+1:]
	}
	host = strings.TrimRight(strings.ToLower(host), ".")
	if strings.ContainsAny(host, "[]") && !(strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && strings.Count(host, "[") == 1 && strings.Count(host, "]") == 1 && strings.Contains(host, ":")) {
		return "", fmt.Errorf("bad host %q: %w", host, claimtrace.ErrInvalid)
	}
	if host == "" {
		return "", fmt.Errorf("no host: %w", claimtrace.ErrInvalid)
	}
	ipv6 := strings.HasPrefix(host, "[")
	for _, r := range host {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.' || r == '_' || (ipv6 && (r == '[' || r == ']' || r == ':'))) {
			return "", fmt.Errorf("bad host %q: %w", host, claimtrace.ErrInvalid)
		}
	}
	if !strings.ContainsFunc(host, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return "", fmt.Errorf("bad host %q: %w", host, claimtrace.ErrInvalid)
	}
	if port != "" && !allDigits(port) {
		return "", fmt.Errorf("bad port %q: %w", port, claimtrace.ErrInvalid)
	}
	if h, ok := strings.CutPrefix(host, "www."); ok && strings.Contains(h, ".") {
		host = h
	}
	switch {
	case host == "dx.doi.org":
		host = "doi.org"
	case host == "m.youtube.com" || host == "youtube-nocookie.com":
		host = "youtube.com"
	case host == "export.arxiv.org":
		host = "arxiv.org"
	case strings.HasSuffix(host, ".m.wikipedia.org"):
		host = strings.TrimSuffix(host, ".m.wikipedia.org") + ".wikipedia.org"
	}
	if port != "" && port != "80" && port != "443" {
		host += ":" + port
	}
	return host, nil
}

// escapePath normalizes percent-encoding. In a path (inPath) the unreserved
// characters, the sub-delimiters, ':' and '@' are decoded; in a query key or
// value only the unreserved characters and ":@/?" are, because "&", "=", "+"
// and ";" carry meaning there. Everything else keeps (or gets) an upper-case
// escape, including non-ASCII bytes, so "中" and "%e4%b8%ad" are one form.
func escapePath(s string, inPath bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if decodable(d, inPath) {
				b.WriteByte(d)
			} else {
				writeEscape(&b, d)
			}
			i += 2
			continue
		}
		if c == '%' || c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}#", c) >= 0 || (inPath && c == '?') {
			writeEscape(&b, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func decodable(c byte, inPath bool) bool {
	if isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' {
		return true
	}
	if inPath {
		return strings.IndexByte("!$&'()*+,;=:@", c) >= 0
	}
	return c == ':' || c == '@' || c == '/' || c == '?'
}

func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

// param is one query parameter, kept in its normalized escaped form.
type param struct {
	key, value string
	hasValue   bool
}

func splitQuery(q string) []param {
	var ps []param
	for part := range strings.SplitSeq(q, "&") {
		if part == "" {
			continue
		}
		k, v, has := strings.Cut(part, "=")
		ps = append(ps, param{key: escapePath(k, false), value: escapePath(v, false), hasValue: has})
	}
	return ps
}

// trackingParams are query keys (lowercased) that never identify a page:
// advertising click ids, analytics and newsletter tags, share-sheet markers.
// utm_* is matched by prefix. Keys that sometimes identify content ("id",
// "p", "cid", "src", "state") are deliberately not here.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true,
	"msclkid": true, "yclid": true, "twclid": true, "ttclid": true, "li_fat_id": true,
	"mc_cid": true, "mc_eid": true, "_ga": true, "_gl": true, "_hsenc": true, "_hsmi": true,
	"__hstc": true, "__hssc": true, "__hsfp": true, "hsctatracking": true, "mkt_tok": true,
	"igshid": true, "igsh": true, "spm": true, "scm": true, "vd_source": true,
	"share": true, "share_source": true, "share_medium": true, "share_from": true, "share_plat": true,
	"share_tag": true, "sharer_sharetime": true, "sharer_shareid": true, "sharer_shareinfo": true,
	"sharer_shareinfo_first": true, "mpshare": true, "srcid": true, "scene": true, "chksm": true,
	"exportkey": true, "pass_ticket": true, "ascene": true, "clicktime": true, "enterid": true,
	"isappinstalled": true, "wxshare_count": true, "wt.mc_id": true, "wt_mc_id": true,
	"ocid": true, "cmpid": true, "trk": true, "trkcampaign": true, "oly_enc_id": true,
	"oly_anon_id": true, "vero_id": true, "vero_conv": true, "_openstat": true,
	"ref_src": true, "ref_url": true, "referrer": true, "ref": true,
}

// dropTracking removes tracking parameters and sorts the rest.
//
// Value-dependent rules: "source" is dropped only when its value names a chat
// assistant (source=chatgpt.com and the like); "from" only when its value has
// no digit ("from=timeline", "from=search"), as "from=2020-01-01" may select
// content. "ref" is kept on code hosts, where it names a branch. On YouTube
// the share, playback-position and channel markers go (feature, si, t, start,
// ab_channel, pp); on mp.weixin.qq.com only the four article keys (__biz, mid,
// idx, sn) are kept.
func dropTracking(host string, ps []param) []param {
	out := ps[:0]
	youtube := host == "youtube.com" || strings.HasSuffix(host, ".youtube.com")
	wechat := host == "mp.weixin.qq.com"
	codeHost := host == "github.com" || host == "gitlab.com" || host == "bitbucket.org" || strings.HasSuffix(host, ".github.com")
	for _, p := range ps {
		k := strings.ToLower(p.key)
		v := strings.ToLower(p.value)
		drop := strings.HasPrefix(k, "utm_") || trackingParams[k]
		switch {
		case k == "ref" && codeHost:
			drop = false
		case k == "source":
			drop = strings.Contains(v, "chatgpt") || strings.Contains(v, "openai") || strings.Contains(v, "perplexity") || strings.Contains(v, "copilot")
		case k == "from":
			drop = !strings.ContainsAny(v, "0123456789")
		case youtube:
			switch k {
			case "feature", "si", "t", "start", "ab_channel", "pp", "app":
				drop = true
			}
		case wechat:
			switch k {
			case "__biz", "mid", "idx", "sn":
				drop = false
			default:
				drop = true
			}
		}
		if !drop {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].key != out[j].key {
			return out[i].key < out[j].key
		}
		return out[i].value < out[j].value
	})
	return out
}
