package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/BurntSushi/toml"
)

// Config is the effective configuration: defaults < config file <
// CLAIMTRACE_* environment < flags. Secrets are never stored here by value
// from the file; the file names the environment variable that holds a key.
type Config struct {
	// DataDir holds the default store and caches.
	DataDir string `toml:"data_dir"`
	// Store is the store DSN: a SQLite file path (default DataDir/claimtrace.db),
	// "sqlite:PATH" or a postgres:// URL.
	Store string `toml:"store"`
	// Concurrency bounds parallel work (reports, fetches).
	Concurrency int `toml:"concurrency"`

	Fetch FetchConfig `toml:"fetch"`
}

// FetchConfig configures the HTTP fetcher used for cited URLs.
type FetchConfig struct {
	UserAgent   string `toml:"user_agent"`
	TimeoutSecs int    `toml:"timeout_seconds"`
	MaxBytes    int64  `toml:"max_bytes"`
	// AllowHosts lists hosts (or CIDRs) that may resolve to private addresses,
	// e.g. an intranet mirror. URLs from reports never get this by default.
	AllowHosts []string `toml:"allow_hosts"`
	// PerHostRPS limits requests per second to one host (politeness).
	PerHostRPS float64 `toml:"per_host_rps"`
}

func defaultConfig() *Config {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return &Config{
		DataDir:     filepath.Join(dir, "claimtrace"),
		Concurrency: 8,
		Fetch: FetchConfig{
			UserAgent:   "claimtrace/0.1 (+https://github.com/claimtrace/claimtrace)",
			TimeoutSecs: 30,
			MaxBytes:    20 << 20,
			PerHostRPS:  2,
		},
	}
}

// loadConfig builds the effective configuration once per invocation.
func (a *app) loadConfig() error {
	if a.cfg != nil {
		return nil
	}
	cfg := defaultConfig()
	path := a.configPath
	explicit := path != ""
	if path == "" {
		path = os.Getenv("CLAIMTRACE_CONFIG")
		explicit = path != ""
	}
	if path == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			path = filepath.Join(dir, "claimtrace", "config.toml")
		}
	}
	if path != "" {
		_, err := toml.DecodeFile(path, cfg)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		default:
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	if v := os.Getenv("CLAIMTRACE_DATA_DIR"); v != "" {
		cfg.DataDir = v
	}
	if v := os.Getenv("CLAIMTRACE_STORE"); v != "" {
		cfg.Store = v
	}
	if v := os.Getenv("CLAIMTRACE_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("CLAIMTRACE_CONCURRENCY=%q: want a positive integer", v)
		}
		cfg.Concurrency = n
	}
	a.cfg = cfg
	return nil
}

// secretValues returns key values the configuration can reach, for redaction.
func (c *Config) secretValues() []string { return nil }
