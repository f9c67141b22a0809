package construct

import (
	"io"
	"sync"
)

// progressStep is how many bytes a ProgressReader reads between reports:
// select reads hundreds of MB a second, so a report per 4 MiB is at most a
// few hundred calls a second.
const progressStep = 4 << 20

// progress reports one stage's advance to Builder.Progress. It serializes
// the calls, keeps done non-decreasing and within total, and drops
// repeats, so the callback need not be safe for concurrent use. A nil
// *progress (no callback) does nothing.
type progress struct {
	fn    func(stage string, done, total int64)
	stage string
	total int64

	mu       sync.Mutex
	done     int64
	reported bool
}

// progress starts reporting stage, or returns nil when nobody listens or
// there is nothing to do.
func (b *Builder) progress(stage string, total int64) *progress {
	if b.Progress == nil || total <= 0 {
		return nil
	}
	return &progress{fn: b.Progress, stage: stage, total: total}
}

// set reports that done units are finished.
func (p *progress) set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setLocked(done)
}

func (p *progress) setLocked(done int64) {
	done = min(done, p.total)
	if p.reported && done <= p.done {
		return
	}
	p.done, p.reported = done, true
	p.fn(p.stage, done, p.total)
}

// add reports n more finished units.
func (p *progress) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setLocked(p.done + n)
}

// finish reports the stage complete.
func (p *progress) finish() {
	if p != nil {
		p.set(p.total)
	}
}

// ProgressReader counts the bytes read through it and reports the count
// every 4 MiB and at the end of the input, from the goroutine that calls
// Read: in between, a Read costs an addition and a comparison. Like any
// io.Reader it must not be read from several goroutines at once.
type ProgressReader struct {
	r      io.Reader
	total  int64
	report func(done, total int64)

	read, next, reported int64
}

// NewProgressReader returns a reader of r that tells report how many of
// total bytes have been read. A total of 0 means unknown (a stream); with
// a known total, the count reported never exceeds it, even if the file
// grows while it is read.
func NewProgressReader(r io.Reader, total int64, report func(done, total int64)) *ProgressReader {
	return &ProgressReader{r: r, total: total, report: report, next: progressStep}
}

func (p *ProgressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.read >= p.next || err == io.EOF {
		p.next = p.read + progressStep
		done := p.read
		if p.total > 0 {
			done = min(done, p.total)
		}
		if done > p.reported {
			p.reported = done
			p.report(done, p.total)
		}
	}
	return n, err
}
