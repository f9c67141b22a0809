//go:build !unix

package report

// openNonblock is zero where opening a file cannot wait for a writer.
const openNonblock = 0
