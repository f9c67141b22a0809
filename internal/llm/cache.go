package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/atomicfile"
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// Cache stores answers by key. The store implements it (a table of the run
// database); MemoryCache and FileCache serve tests and store-less use.
// Get reports ok=false, not an error, for a missing key.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Put(ctx context.Context, key string, val []byte) error
}

// Ledger records the accounting of every call and cache hit. The store
// implements it.
type Ledger interface {
	Record(ctx context.Context, call claimtrace.LLMCall) error
}

// keyVersion changes when the key's canonical encoding changes, so old
// cache entries are not misread.
const keyVersion = 1

// keyDoc is the canonical encoding hashed into a cache key: everything that
// determines the answer. Field order is fixed and JSON documents (tool
// parameters, schemas, tool-call arguments) are compacted, so formatting
// does not change the key.
type keyDoc struct {
	V           int       `json:"v"`
	Provider    Provider  `json:"provider"`
	Model       string    `json:"model"`
	System      string    `json:"system"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools"`
	Schema      *Schema   `json:"schema"`
	WebSearch   bool      `json:"web_search"`
	MaxSearches int       `json:"max_searches,omitempty"`
	Temperature string    `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Seed        *int      `json:"seed"`
	Tag         string    `json:"tag"`
	// TopLogprobs is left out when 0, so that the keys of requests
	// without it stay what they were.
	TopLogprobs int `json:"top_logprobs,omitempty"`
}

// Key returns the cache key of req sent to provider p's model: the hex
// SHA-256 of its canonical encoding.
func Key(p Provider, model string, req Request) string {
	doc := keyDoc{
		V: keyVersion, Provider: p, Model: model,
		System: req.System, WebSearch: req.WebSearch, MaxSearches: req.MaxSearches,
		MaxTokens: req.MaxTokens, Seed: req.Seed, Tag: req.CacheTag, TopLogprobs: req.TopLogprobs,
	}
	for _, m := range req.Messages {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		for i := range m.ToolCalls {
			m.ToolCalls[i].Arguments = compactJSON(m.ToolCalls[i].Arguments)
		}
		doc.Messages = append(doc.Messages, m)
	}
	for _, t := range req.Tools {
		t.Parameters = compactJSON(t.Parameters)
		doc.Tools = append(doc.Tools, t)
	}
	if req.Schema != nil {
		s := *req.Schema
		s.JSON = compactJSON(s.JSON)
		doc.Schema = &s
	}
	if req.Temperature != nil {
		doc.Temperature = strconv.FormatFloat(*req.Temperature, 'g', -1, 64)
	}
	// Every field is plain data (the temperature is text, so even NaN
	// encodes), so Marshal cannot fail.
	b, _ := json.Marshal(doc)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// compactJSON removes insignificant whitespace; invalid JSON is kept as a
// JSON string so the key still depends on it.
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.Bytes()
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// cacheVersion tags stored answers; an entry of another version is a miss.
const cacheVersion = 1

type cachedAnswer struct {
	V int `json:"v"`
	Response
}

func encodeAnswer(r Response) ([]byte, error) {
	return json.Marshal(cachedAnswer{V: cacheVersion, Response: r})
}

func decodeAnswer(b []byte) (Response, bool) {
	var a cachedAnswer
	if json.Unmarshal(b, &a) != nil || a.V != cacheVersion {
		return Response{}, false
	}
	return a.Response, true
}

// MemoryCache is a Cache in memory, for tests and one-off commands.
type MemoryCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemoryCache returns an empty MemoryCache.
func NewMemoryCache() *MemoryCache { return &MemoryCache{m: map[string][]byte{}} }

// Get returns the value stored under key.
func (c *MemoryCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return bytes.Clone(v), ok, nil
}

// Put stores val under key.
func (c *MemoryCache) Put(ctx context.Context, key string, val []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = bytes.Clone(val)
	return nil
}

// Len returns the number of stored entries.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// FileCache is a durable Cache in a directory, one file per key, for use
// without a store. Put is atomic and synced (temporary file, fsync,
// rename), so an answer is either fully stored or absent after a crash.
type FileCache struct {
	dir string
}

// NewFileCache returns a FileCache in dir, creating it if needed.
func NewFileCache(dir string) (*FileCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("response cache %s: %w", dir, err)
	}
	return &FileCache{dir: dir}, nil
}

func (c *FileCache) path(key string) (string, error) {
	if len(key) < 3 || filepath.Base(key) != key || key[0] == '.' {
		return "", fmt.Errorf("response cache key %q: %w", key, claimtrace.ErrInvalid)
	}
	return filepath.Join(c.dir, key[:2], key), nil
}

// maxCachedResponse bounds one cached response file: provider responses
// are far smaller.
const maxCachedResponse = 256 << 20

// Get reads the value stored under key.
func (c *FileCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	p, err := c.path(key)
	if err != nil {
		return nil, false, err
	}
	b, err := inputfile.ReadFile(p, maxCachedResponse)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("response cache: %w", err)
	}
	return b, true, nil
}

// Put stores val under key durably.
func (c *FileCache) Put(ctx context.Context, key string, val []byte) error {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("response cache: %w", err)
	}
	if err := atomicfile.Write(p, val, 0o600); err != nil {
		return fmt.Errorf("response cache %s: %w", key, err)
	}
	return nil
}
