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
	// MaxConnsPerAddr caps the connections open at once from one client
	// address (IP); more are closed as soon as they are accepted.
	MaxConnsPerAddr int
	// ReservedConns are kept for connections that authenticated (a
	// request on them carried a valid token, see Authenticated): at most
	// MaxConns − ReservedConns connections may be open without having
	// authenticated, and when a new one needs a place, the one of them
	// idle the longest is closed.
	ReservedConns int
	// UnauthIdleTimeout closes a connection that has not authenticated
	// once it is idle that long, before its first request or between two.
	UnauthIdleTimeout time.Duration
}

// DefaultLimits are the limits of both servers unless configured.
func DefaultLimits() Limits {
	return Limits{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxConns:          256,
		MaxConnsPerAddr:   32,
		ReservedConns:     64,
		UnauthIdleTimeout: 5 * time.Second,
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
	if l.MaxConnsPerAddr <= 0 {
		l.MaxConnsPerAddr = d.MaxConnsPerAddr
	}
	if l.ReservedConns <= 0 {
		l.ReservedConns = max(l.MaxConns/4, 1)
	}
	if l.UnauthIdleTimeout <= 0 {
		l.UnauthIdleTimeout = d.UnauthIdleTimeout
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
		ConnState:         connState,
		ConnContext:       connContext,
	}
	addr := ln.Addr()
	ln = newConnGate(ln, l)
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
