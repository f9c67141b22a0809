package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/claimtrace/claimtrace/internal/httpserve"
	"github.com/claimtrace/claimtrace/internal/live"
	"github.com/claimtrace/claimtrace/internal/llm"
	"github.com/claimtrace/claimtrace/internal/store"
)

func (a *app) configCmd() *cobra.Command {
	var show bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration, keys redacted",
		Long: `config says which config file is in use and which models are configured,
with the environment variable each key comes from and whether it is set
(never its value). --show prints the whole effective configuration
(defaults < config file < CLAIMTRACE_* environment) as TOML: every value as
it is in force (a limit left at 0 in the file prints its default), the
store as the path commands open, and a run budget only when there is one
(llm.max_cost and llm.max_calls: a positive number, or absent for no
limit).`,
		Example: `  claimtrace config
  claimtrace config --show
  claimtrace config --show --config ./claimtrace.toml > effective.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var b strings.Builder
			if show {
				shown := a.cfg.inForce()
				shown.Store = store.RedactDSN(a.storeDSN(""))
				if err := toml.NewEncoder(&b).Encode(&shown); err != nil {
					return fmt.Errorf("encode config: %w", err)
				}
				b.WriteString("\n")
			}
			a.describeConfig(&b)
			_, err := fmt.Fprint(a.stdout, a.redact(b.String()))
			return err
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "print the whole effective configuration as TOML")
	return cmd
}

// describeConfig writes where the configuration comes from and how each
// model resolves, as comment lines (valid TOML after --show output).
func (a *app) describeConfig(b *strings.Builder) {
	c := a.cfg
	switch {
	case c.file == "":
		b.WriteString("# config file: none\n")
	case c.loaded:
		fmt.Fprintf(b, "# config file: %s\n", c.file)
	default:
		fmt.Fprintf(b, "# config file: %s (not found; defaults in use)\n", c.file)
	}
	var env []string
	for _, name := range []string{"CLAIMTRACE_CONFIG", "CLAIMTRACE_DATA_DIR", "CLAIMTRACE_STORE", "CLAIMTRACE_CONCURRENCY", "CLAIMTRACE_MODEL", "CLAIMTRACE_MAX_COST", "CLAIMTRACE_MAX_CALLS"} {
		if os.Getenv(name) != "" {
			env = append(env, name)
		}
	}
	if len(env) > 0 {
		fmt.Fprintf(b, "# environment overrides: %s\n", strings.Join(env, ", "))
	}
	fmt.Fprintf(b, "# data dir: %s\n", c.DataDir)
	fmt.Fprintf(b, "# run budget: %s\n", budgetText(c.LLM))

	specs := []string{}
	if c.LLM.Model != "" {
		specs = append(specs, c.LLM.Model)
	}
	specs = append(specs, c.LLM.FactCheckers...)
	for name := range c.LLM.Models {
		specs = append(specs, name)
	}
	slices.Sort(specs)
	specs = slices.Compact(specs)
	if len(specs) == 0 {
		b.WriteString("# models: none configured (pass --model provider:model)\n")
		return
	}
	b.WriteString("# models:\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, spec := range specs {
		ep, opts, err := c.endpoint(spec)
		if err != nil {
			fmt.Fprintf(tw, "#   %s\terror: %v\n", spec, err)
			continue
		}
		key := "key " + ep.KeyEnv
		if ep.APIKey != "" {
			key += " (set)"
		} else {
			key += " (not set)"
		}
		base := ep.BaseURL
		if base == "" {
			base = "public API"
		}
		role := ""
		if spec == c.LLM.Model {
			role = " [default]"
		}
		if slices.Contains(c.LLM.FactCheckers, spec) {
			role += " [fact-check]"
		}
		lim := llm.EffectiveLimits(opts.Limits, ep)
		fmt.Fprintf(tw, "#   %s%s\t%s\t%s\t%s\tup to %d in flight, rpm %s, tpm %s\n", spec, role, ep, base, key, lim.Concurrency, orNone(lim.RPM), orNone(lim.TPM))
	}
	tw.Flush()
}

// budgetText says what a run may spend, in words: "$5 and 200 calls",
// "$5, calls not limited", "no limit".
func budgetText(l LLMConfig) string {
	cost, calls := "dollars not limited", "calls not limited"
	if l.MaxCost > 0 {
		cost = fmt.Sprintf("$%g", l.MaxCost)
	}
	if l.MaxCalls > 0 {
		calls = fmt.Sprintf("%d calls", l.MaxCalls)
	}
	if l.MaxCost <= 0 && l.MaxCalls <= 0 {
		return "no limit (llm.max_cost and llm.max_calls not set)"
	}
	return cost + ", " + calls
}

// inForce returns the configuration with every limit that a 0 leaves to
// its default ([serve], [live]) set to that default, as commands apply it.
func (c *Config) inForce() Config {
	s := *c
	d := httpserve.DefaultLimits()
	orSecs := func(v *int, def time.Duration) {
		if *v <= 0 {
			*v = int(def / time.Second)
		}
	}
	orSecs(&s.Serve.ReadTimeoutSecs, d.ReadTimeout)
	orSecs(&s.Serve.WriteTimeoutSecs, d.WriteTimeout)
	orSecs(&s.Serve.IdleTimeoutSecs, d.IdleTimeout)
	if s.Serve.MaxConns <= 0 {
		s.Serve.MaxConns = d.MaxConns
	}
	l := live.DefaultLimits()
	if s.Live.MaxSources <= 0 {
		s.Live.MaxSources = l.Sources
	}
	if s.Live.MaxClaims <= 0 {
		s.Live.MaxClaims = l.Claims
	}
	if s.Live.MaxEdges <= 0 {
		s.Live.MaxEdges = l.Edges
	}
	if s.Live.MaxSessionBytes <= 0 {
		s.Live.MaxSessionBytes = l.Bytes
	}
	return s
}

// orNone writes a rate limit, 0 being none.
func orNone(n int) string {
	if n <= 0 {
		return "no limit"
	}
	return strconv.Itoa(n)
}
