package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/claimtrace/claimtrace"
)

// LLMCache is the response cache view of the store: Get and Put by request hash.
type LLMCache struct{ s *Store }

// LLMCache returns the store's LLM response cache.
func (s *Store) LLMCache() LLMCache { return LLMCache{s} }

// Get returns the cached response for key.
func (c LLMCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	err := c.s.queryRow(ctx, `SELECT value FROM llm_cache WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("llm cache get: %w", err)
	}
	return v, true, nil
}

// Put stores a response under key.
func (c LLMCache) Put(ctx context.Context, key string, val []byte) error {
	_, err := c.s.exec(ctx, `INSERT INTO llm_cache (key, value, created_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, val, c.s.now())
	if err != nil {
		return fmt.Errorf("llm cache put: %w", err)
	}
	return nil
}

// Record stores the accounting of one LLM call.
func (s *Store) Record(ctx context.Context, c claimtrace.LLMCall) error {
	at := c.At
	if at.IsZero() {
		at = s.Now()
	}
	_, err := s.exec(ctx, `INSERT INTO llm_calls (run_id, key, stage, provider, model, input_tokens, output_tokens,
		cached_tokens, reasoning_tokens, latency_ms, cost_usd, cache_hit, attempts, error, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Run, c.Key, c.Stage, c.Provider, c.Model, c.InputTokens, c.OutputTokens, c.CachedTokens, c.ReasoningTokens,
		c.Latency.Milliseconds(), c.Cost, c.CacheHit, c.Attempts, cleanText(c.Err), stamp(at))
	if err != nil {
		return fmt.Errorf("record llm call: %w", err)
	}
	return nil
}

// LLMTotals sums the accounting of a run. Calls counts requests sent to a
// provider (failed ones included); cache hits are counted apart.
type LLMTotals struct {
	Calls, CacheHits, Failed                              int64
	InputTokens, OutputTokens, CachedTokens, ReasonTokens int64
	Cost                                                  float64
}

// LLMTotals returns the totals of the calls recorded for run. (PostgreSQL
// sums BIGINT as NUMERIC, hence the casts; cache_hit is INTEGER on SQLite and
// BOOLEAN on PostgreSQL, and CASE WHEN reads both.)
func (s *Store) LLMTotals(ctx context.Context, run string) (LLMTotals, error) {
	var t LLMTotals
	err := s.queryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN cache_hit THEN 0 ELSE 1 END), 0),
		COALESCE(SUM(CASE WHEN cache_hit THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN error <> '' THEN 1 ELSE 0 END), 0),
		CAST(COALESCE(SUM(input_tokens), 0) AS BIGINT), CAST(COALESCE(SUM(output_tokens), 0) AS BIGINT),
		CAST(COALESCE(SUM(cached_tokens), 0) AS BIGINT), CAST(COALESCE(SUM(reasoning_tokens), 0) AS BIGINT),
		COALESCE(SUM(cost_usd), 0)
		FROM llm_calls WHERE run_id = ?`, run).Scan(&t.Calls, &t.CacheHits, &t.Failed, &t.InputTokens, &t.OutputTokens,
		&t.CachedTokens, &t.ReasonTokens, &t.Cost)
	if err != nil {
		return t, fmt.Errorf("llm totals: %w", err)
	}
	return t, nil
}
