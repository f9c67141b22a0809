package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasAnExample walks the command tree: every command a user
// runs (not a group that only lists its subcommands) shows at least one
// example in --help, each line a claimtrace command line.
func TestEveryCommandHasAnExample(t *testing.T) {
	a := &app{}
	var missing []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || c.HasParent() && c.Parent().Name() == "completion" {
			return
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return // a group: its --help lists its subcommands
		}
		ex := strings.TrimSpace(c.Example)
		if ex == "" {
			missing = append(missing, c.CommandPath())
			return
		}
		continued := false // the line before ended with a backslash
		for _, line := range strings.Split(ex, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !continued && !strings.HasPrefix(line, "#") && !strings.Contains(line, "claimtrace ") {
				t.Errorf("%s: example line %q runs no claimtrace command", c.CommandPath(), line)
			}
			continued = strings.HasSuffix(line, "\\")
		}
	}
	walk(a.rootCmd())
	if len(missing) > 0 {
		t.Errorf("%d commands have no example in --help: %s", len(missing), strings.Join(missing, ", "))
	}
}
