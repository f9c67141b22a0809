package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioSurvivesMalformedLines feeds the stdio transport, through a
// pipe, the lines that ended the session before: not JSON, a message cut
// short, JSON nested 100,000 deep, a line over MaxLine, a JSON value that
// is no JSON-RPC message, a batch. Each gets a JSON-RPC error with a null
// id, and the server then answers a real request.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(service(t), testVersion).Run(ctx, StdioTransport(inR, outW)) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	lines := bufio.NewReader(outR)
	answer := func() map[string]any {
		t.Helper()
		type result struct {
			line string
			err  error
		}
		got := make(chan result, 1)
		go func() {
			l, err := lines.ReadString('\n')
			got <- result{l, err}
		}()
		select {
		case r := <-got:
			if r.err != nil {
				t.Fatalf("reading the answer: %v (the server stopped)", r.err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(r.line), &m); err != nil {
				t.Fatalf("answer %q: %v", r.line, err)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	send := func(line string) {
		go io.WriteString(inW, line+"\n")
	}

	for _, tc := range []struct {
		name, line string
		code       float64
	}{
		{"not JSON", "hello", -32700},
		{"cut short", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700},
		{"100k deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32600},
		{"100k deep unclosed", `{"jsonrpc":"2.0","id":2,"method":"ping","params":` + strings.Repeat(`{"a":`, 100000), -32600},
		{"over MaxLine", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", MaxLine) + `"}}`, -32700},
		{"not JSON-RPC", `{"hello":"world"}`, -32600},
		{"batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600},
	} {
		send(tc.line)
		m := answer()
		e, _ := m["error"].(map[string]any)
		if id, ok := m["id"]; !ok || id != nil || e == nil || e["code"] != tc.code {
			t.Errorf("%s: answer %v; want error %v with id null", tc.name, m, tc.code)
		}
	}

	send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m := answer()
	if m["id"] != float64(7) || m["result"] == nil {
		t.Errorf("initialize after the bad lines: %v", m)
	}
}
