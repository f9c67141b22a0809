package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// encodeGraph writes g to w as prov.Encode does, byte for byte, one node,
// edge or conflict at a time: the server holds one element's JSON at a
// time, not the whole document.
func encodeGraph(w io.Writer, g *prov.Graph) error {
	e := &jsonStream{w: bufio.NewWriterSize(w, 32<<10)}
	e.enc = json.NewEncoder(&e.raw)
	e.enc.SetEscapeHTML(false)
	e.str("{\n  \"format\": ")
	e.value(prov.FormatVersion)
	for _, f := range [][2]string{{"id", g.ID}, {"query", g.Query}, {"agent", g.Agent}} {
		if f[1] != "" {
			e.str(",\n  \"" + f[0] + "\": ")
			e.value(f[1])
		}
	}
	streamList(e, "sources", g.Sources, false)
	streamList(e, "reasoning", g.Reasoning, true)
	streamList(e, "claims", g.Claims, false)
	streamList(e, "edges", g.Edges, false)
	streamList(e, "conflicts", g.Conflicts, true)
	e.str("\n}\n")
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("encode graph %q: %w", g.ID, e.err)
	}
	return nil
}

// streamList writes one member holding a list, element by element;
// omitEmpty leaves an empty list out, as the member's omitempty tag does.
func streamList[T any](e *jsonStream, key string, list []T, omitEmpty bool) {
	if len(list) == 0 && omitEmpty {
		return
	}
	e.str(",\n  \"" + key + "\": [")
	for i := range list {
		if i > 0 {
			e.str(",")
		}
		e.str("\n    ")
		e.value(&list[i])
	}
	if len(list) > 0 {
		e.str("\n  ")
	}
	e.str("]")
}

// jsonStream writes indented JSON piece by piece through reused buffers;
// the first error sticks.
type jsonStream struct {
	w        *bufio.Writer
	raw, out bytes.Buffer
	enc      *json.Encoder
	err      error
}

func (e *jsonStream) str(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// value writes v indented as an element of a list in the document's
// top-level object.
func (e *jsonStream) value(v any) {
	if e.err != nil {
		return
	}
	e.raw.Reset()
	e.out.Reset()
	if e.err = e.enc.Encode(v); e.err != nil {
		return
	}
	if e.err = json.Indent(&e.out, bytes.TrimRight(e.raw.Bytes(), "\n"), "    ", "  "); e.err != nil {
		return
	}
	_, e.err = e.w.Write(e.out.Bytes())
}
