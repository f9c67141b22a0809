//go:build !unix

package inputfile

// openNonblock is zero where opening a file cannot wait for a writer.
const openNonblock = 0
