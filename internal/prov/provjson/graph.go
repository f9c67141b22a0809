package provjson

import (
	"fmt"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// ReadGraph decodes the graph file at path, whose content data is in
// format f as prov.Sniff told it: claimtrace's native JSON or PROV-JSON.
// Errors name the file; a graph without an id is named after the file
// (prov.NameFromFile). Other formats are refused with ErrInvalid.
func ReadGraph(path string, data []byte, f prov.Format) (*prov.Graph, error) {
	var dec func([]byte) (*prov.Graph, error)
	switch f {
	case prov.FormatNative:
		dec = prov.Unmarshal
	case prov.FormatPROVJSON:
		dec = Unmarshal
	default:
		return nil, fmt.Errorf("%s: a %s document is not a graph to read: %w", path, f, claimtrace.ErrInvalid)
	}
	g, err := dec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	prov.NameFromFile(g, path)
	return g, nil
}
