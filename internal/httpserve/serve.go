// Package httpserve runs claimtrace's HTTP servers (claimtrace serve and
// claimtrace mcp --http) with the same defences: read, write and idle
// timeouts, a cap on open connections, a Host header allow-list against DNS
// rebinding, and one reading of bearer tokens.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Limits bound what one connection may hold on to.
type Limits struct {
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response, from the end of the request's
	// headers. A handler may lift it for a long-lived stream it vouches for
	// (an authenticated event stream) with http.ResponseController.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no request.
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once; more wait to be
	// accepted until one closes.
	MaxConns int
}

// DefaultLimits are the limits of both servers unless configured.
func DefaultLimits() Limits {
	return Limits{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxConns:          256,
	}
}

// orDefault fills the zero fields of l from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = d.ReadHeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = d.ReadTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxConns <= 0 {
		l.MaxConns = d.MaxConns
	}
	return l
}

// Serve serves h on ln under limits (zero fields take DefaultLimits) until
// ctx is done, then shuts down gracefully: requests in flight get up to
// grace to finish, and connections still open after it are closed.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, limits Limits, grace time.Duration) error {
	l := limits.orDefault()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	addr := ln.Addr()
	ln = netutil.LimitListener(ln, l.MaxConns)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shut down %s: %w", addr, err)
	}
	return nil
}
