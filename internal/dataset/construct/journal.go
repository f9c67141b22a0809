package construct

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/claimtrace/claimtrace/internal/atomicfile"
)

// journal is the append-only record of one stage: a JSONL file with one
// row per finished unit (a paper), written as soon as the unit is done, so
// a crash loses only the units in flight. When a unit appears twice (a
// failure retried later), the last row wins.
type journal[T any] struct {
	path string
	key  func(T) string

	mu   sync.Mutex
	f    *os.File
	rows map[string]T
}

// openJournal reads the rows already in path and opens it for appending. A
// torn last line (a crash mid-write) is cut off.
func openJournal[T any](path string, key func(T) string) (*journal[T], error) {
	j := &journal[T]{path: path, key: key, rows: make(map[string]T)}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	good := bytes.LastIndexByte(data, '\n') + 1
	for line := range bytes.SplitSeq(data[:good], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var row T
		if err := json.Unmarshal(line, &row); err != nil {
			return nil, fmt.Errorf("journal %s: corrupt line %q: %w", path, truncate(string(line), 80), err)
		}
		j.rows[key(row)] = row
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	if err := f.Truncate(int64(good)); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair journal %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	j.f = f
	return j, nil
}

// get returns the row of a unit.
func (j *journal[T]) get(id string) (T, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.rows[id]
	return r, ok
}

// add appends a row and records it.
func (j *journal[T]) add(row T) error {
	line, err := json.Marshal(row)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(line); err != nil {
		return fmt.Errorf("write journal %s: %w", j.path, err)
	}
	j.rows[j.key(row)] = row
	return nil
}

func (j *journal[T]) close() error { return j.f.Close() }

// readJournal returns the rows of a stage without opening it for writing;
// a torn last line (a stage interrupted mid-write) is ignored.
func readJournal[T any](path string, key func(T) string) (map[string]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read stage output: %w", err)
	}
	rows := make(map[string]T)
	good := bytes.LastIndexByte(data, '\n') + 1
	for line := range bytes.SplitSeq(data[:good], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var row T
		if err := json.Unmarshal(line, &row); err != nil {
			return nil, fmt.Errorf("stage output %s: corrupt line %q: %w", path, truncate(string(line), 80), err)
		}
		rows[key(row)] = row
	}
	return rows, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so readers never see a half-written file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
