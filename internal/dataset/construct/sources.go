package construct

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"golang.org/x/time/rate"

	"github.com/claimtrace/claimtrace"
)

// Downloader fetches a URL into w and returns the response's content type.
// The lead's SSRF-safe fetcher satisfies it; HTTPDownloader is a plain
// implementation.
type Downloader interface {
	Download(ctx context.Context, url string, w io.Writer) (contentType string, err error)
}

// DefaultArXivBase is where e-prints are downloaded from: base + id.
const DefaultArXivBase = "https://arxiv.org/e-print/"

// HTTPDownloader downloads with an http.Client, a size cap and a rate
// limit (arXiv asks bulk clients for one request every three seconds).
type HTTPDownloader struct {
	Client    *http.Client
	UserAgent string
	// MaxBytes caps a download (default 256 MiB).
	MaxBytes int64
	// Limiter spaces requests; nil means no limit.
	Limiter *rate.Limiter
}

// NewHTTPDownloader returns a downloader with a timeout, a size cap and one
// request per interval (0: no spacing).
func NewHTTPDownloader(userAgent string, timeout, interval time.Duration, maxBytes int64) *HTTPDownloader {
	d := &HTTPDownloader{Client: &http.Client{Timeout: timeout}, UserAgent: userAgent, MaxBytes: maxBytes}
	if interval > 0 {
		d.Limiter = rate.NewLimiter(rate.Every(interval), 1)
	}
	return d
}

// Download fetches url into w.
func (d *HTTPDownloader) Download(ctx context.Context, url string, w io.Writer) (string, error) {
	if d.Limiter != nil {
		if err := d.Limiter.Wait(ctx); err != nil {
			return "", err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	if d.UserAgent != "" {
		req.Header.Set("User-Agent", d.UserAgent)
	}
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("download %s: %w: %w", url, err, claimtrace.ErrUnreachable)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("download %s: HTTP %d", url, resp.StatusCode)
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
			return "", fmt.Errorf("%w: %w", err, claimtrace.ErrNotFound)
		}
		return "", fmt.Errorf("%w: %w", err, claimtrace.ErrUnreachable)
	}
	max := d.MaxBytes
	if max <= 0 {
		max = 256 << 20
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, max+1))
	if err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	if n > max {
		return "", fmt.Errorf("download %s: over %d bytes: %w", url, max, claimtrace.ErrTooLarge)
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		ct = mt
	}
	return ct, nil
}
