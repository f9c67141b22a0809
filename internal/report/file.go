package report

import (
	"github.com/claimtrace/claimtrace/internal/inputfile"
)

// ReadFile reads an input file a user named on the command line or put in
// a reports folder: a report, a provenance graph, a provider's response.
// Every command that reads such a file goes through it (or, for files it
// streams, inputfile.Open), so they all share one size limit and one
// refusal of what is not a file:
//
//   - Only a regular file (or a link to one) is read. A named pipe, a
//     device, a socket or a folder is refused before it is opened, and the
//     file is opened without blocking (O_NONBLOCK) and checked again once
//     open, so that a FIFO swapped in meanwhile cannot hang the command.
//   - A file over max bytes is refused from its size before any of it is
//     read; one that grows while being read is refused after max+1 bytes.
//     Memory stays bounded by max whatever the file's size.
//
// Errors name the file and wrap claimtrace.ErrInvalid (not a regular
// file), claimtrace.ErrTooLarge (over max, with the limit) or the I/O
// error. It is inputfile.ReadFile.
func ReadFile(path string, max int64) ([]byte, error) {
	return inputfile.ReadFile(path, max)
}

// NotRegularError is an input that is not a regular file: a folder, a
// named pipe, a device or a socket. It matches claimtrace.ErrInvalid.
type NotRegularError = inputfile.NotRegularError

// Regular returns nil when path is a regular file or a link to one, a
// *NotRegularError when it is something else, or the error of stat. It
// never opens the file, so it cannot block on a named pipe: a folder
// listing checks its entries with it before reading any.
func Regular(path string) error { return inputfile.Regular(path) }
