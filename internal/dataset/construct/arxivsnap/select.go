package arxivsnap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/claimtrace/claimtrace"
)

// Options tunes Select.
type Options struct {
	// Name names the input in errors ("snapshot.json.gz", "stdin").
	Name string
	// Workers is the number of scanning goroutines; 0 means GOMAXPROCS.
	Workers int
	// BlockSize is the size of the blocks lines are cut from; 0 means 4 MiB.
	BlockSize int
	// SkipMalformed counts lines that are not JSON objects instead of
	// failing on the first.
	SkipMalformed bool
}

// maxLine bounds one snapshot line (the largest real record is a few
// hundred KB).
const maxLine = 64 << 20

// Stats counts what Select read.
type Stats struct {
	// Lines counts input lines, blank ones included.
	Lines int64 `json:"lines"`
	// Records counts the JSON records scanned.
	Records int64 `json:"records"`
	// Kept counts the records written.
	Kept int64 `json:"kept"`
	// Dropped counts rejected records by the first filter they failed.
	Dropped map[Reason]int64 `json:"dropped"`
	// Malformed counts lines skipped with SkipMalformed.
	Malformed int64 `json:"malformed"`
	// Bytes counts the (decompressed) input bytes.
	Bytes int64 `json:"bytes"`
}

// reasonIndex numbers the reasons for the per-block counters.
func reasonIndex(r Reason) int {
	for i, c := range checks {
		if c.reason == r {
			return i
		}
	}
	return 0
}

type block struct {
	seq  int
	data []byte
}

type result struct {
	seq       int
	out       []byte
	lines     int64
	records   int64
	kept      int64
	malformed int64
	dropped   [8]int64
	bytes     int64
	errLine   int64 // line of the first malformed line within the block, -1 if none
	err       error
}

// Select copies to w, unchanged and in input order, every line of the
// snapshot r whose record passes f. Lines are cut from large blocks that
// several workers scan at once. A line that is not a JSON object fails the
// call with its line number, unless opt.SkipMalformed is set.
func Select(ctx context.Context, r io.Reader, w io.Writer, f *Filter, opt Options) (Stats, error) {
	if opt.Name == "" {
		opt.Name = "snapshot"
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.BlockSize <= 0 {
		opt.BlockSize = 4 << 20
	}
	inflight := 2*opt.Workers + 2
	g, ctx := errgroup.WithContext(ctx)
	blocks := make(chan block, inflight)
	results := make(chan result, inflight)
	tokens := make(chan struct{}, inflight) // bounds blocks not yet written
	free := make(chan []byte, inflight)     // recycled block buffers
	outFree := make(chan []byte, inflight)  // recycled output buffers

	g.Go(func() error {
		defer close(blocks)
		return readBlocks(ctx, r, opt, blocks, tokens, free)
	})
	workers, wctx := errgroup.WithContext(ctx)
	for range opt.Workers {
		workers.Go(func() error {
			for b := range blocks {
				var out []byte
				select {
				case out = <-outFree:
				default:
				}
				res := scanBlock(b, f, opt.SkipMalformed, out[:0])
				select {
				case free <- b.data[:0]:
				default:
				}
				select {
				case results <- res:
				case <-wctx.Done():
					return wctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		err := workers.Wait()
		close(results)
		return err
	})

	st := Stats{Dropped: make(map[Reason]int64)}
	var dropped [8]int64
	g.Go(func() error {
		pending := make(map[int]result)
		next := 0
		for res := range results {
			pending[res.seq] = res
			for {
				res, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				next++
				if res.errLine >= 0 {
					return fmt.Errorf("%s line %d: %w", opt.Name, st.Lines+res.errLine+1, res.err)
				}
				if _, err := w.Write(res.out); err != nil {
					return fmt.Errorf("write selected records: %w", err)
				}
				st.Lines += res.lines
				st.Records += res.records
				st.Kept += res.kept
				st.Malformed += res.malformed
				st.Bytes += res.bytes
				for i, n := range res.dropped {
					dropped[i] += n
				}
				select {
				case outFree <- res.out[:0]:
				default:
				}
				<-tokens
			}
		}
		return nil
	})
	err := g.Wait()
	for i, n := range dropped {
		if n > 0 && i < len(checks) {
			st.Dropped[checks[i].reason] = n
		}
	}
	if err != nil {
		return st, err
	}
	return st, nil
}

// readBlocks cuts r into blocks of whole lines.
func readBlocks(ctx context.Context, r io.Reader, opt Options, blocks chan<- block, tokens chan struct{}, free chan []byte) error {
	var carry []byte
	for seq := 0; ; seq++ {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, 0, opt.BlockSize+64<<10)
		}
		buf = append(buf[:0], carry...)
		eof := false
		for {
			if len(buf) == cap(buf) {
				if len(buf) >= maxLine+opt.BlockSize {
					return fmt.Errorf("%s: a line is longer than %d bytes: %w", opt.Name, maxLine, claimtrace.ErrTooLarge)
				}
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", opt.Name, err)
			}
			if len(buf) >= opt.BlockSize && bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
				break
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		if cut > 0 {
			select {
			case blocks <- block{seq: seq, data: buf[:cut]}:
			case <-ctx.Done():
				return ctx.Err()
			}
		} else {
			<-tokens
			seq--
		}
		if eof {
			return nil
		}
	}
}

// scanBlock filters the lines of one block.
func scanBlock(b block, f *Filter, skipMalformed bool, out []byte) result {
	res := result{seq: b.seq, errLine: -1, bytes: int64(len(b.data))}
	data := b.data
	var fields raw
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		res.lines++
		if isBlank(line) {
			continue
		}
		err := scanRaw(line, false, &fields)
		if err != nil {
			if skipMalformed {
				res.malformed++
				continue
			}
			res.errLine, res.err = res.lines-1, err
			break
		}
		res.records++
		if ok, why := f.keep(&fields); ok {
			out = append(out, line...)
			out = append(out, '\n')
			res.kept++
		} else {
			res.dropped[reasonIndex(why)]++
		}
	}
	res.out = out
	return res
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// NewReader returns r decompressed when it starts with the gzip magic
// bytes, and r itself (buffered) otherwise. name is used in errors.
//
// Inflating one gzip stream is sequential and costs about four times the
// CPU of scanning the records, so a .gz snapshot is read at the speed of
// one core inflating; klauspost/compress and pgzip were measured at 10–15%
// less CPU per MB, not enough for a dependency. For disk speed, feed the
// uncompressed .json.
func NewReader(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", name, err)
		}
		return zr, nil
	}
	return br, nil
}

// OpenFile opens a snapshot file, .json or gzip-compressed (detected by
// content).
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return readCloser{r, f}, nil
}

// readCloser reads through the decompressor and closes the file.
type readCloser struct {
	io.Reader
	f *os.File
}

func (r readCloser) Close() error { return r.f.Close() }
