package main

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// app is the state shared by all subcommands of one invocation: the streams,
// the effective configuration and lazily opened resources.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configPath string
	cfg        *Config

	closers []func() error

	// maxInput lowers the size limit on input files (inputLimit), maxGraph
	// the one on graph files (graphLimit); 0 keeps the default. Tests set
	// them.
	maxInput int64
	maxGraph int64

	// progressFlag (--progress) shows progress on stderr when it is not a
	// terminal; calls counts the command's model calls there.
	progressFlag bool
	calls        *callProgress
}

// rootCmd builds the command tree. Subcommands are constructed here, one
// constructor per file, so there is no init() registry.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "claimtrace",
		Short: "Evaluate and audit research reports written by AI deep-research agents",
		Long: `claimtrace scores deep-research reports the way ReportBench does (citation
precision and recall against a survey's references, cited-statement match
rate, non-cited factual accuracy) and audits them as AAR provenance graphs
(PCov, PSnd, CTran, AEff), exportable as W3C PROV.

Start with:
  claimtrace demo                 offline example, no key, no server
  claimtrace dataset pull --dir data/reportbench
  claimtrace eval --dataset data/reportbench --reports REPORTS --out results`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.loadConfig()
		},
	}
	root.PersistentFlags().StringVar(&a.configPath, "config", "", "config file (default: $CLAIMTRACE_CONFIG or <user config dir>/claimtrace/config.toml)")
	root.PersistentFlags().BoolVar(&a.progressFlag, "progress", false, "show progress on stderr (model calls, downloads) even when it is not a terminal; on a terminal it is shown anyway")
	root.AddCommand(
		a.demoCmd(),
		a.datasetCmd(),
		a.dataCmd(),
		a.parseCmd(),
		a.snapshotCmd(),
		a.evalCmd(),
		a.configCmd(),
		a.llmCmd(),
		a.judgeCmd(),
		a.auditCmd(),
		a.gateCmd(),
		a.provCmd(),
		a.importCmd(),
		a.buildCmd(),
		a.runCmd(),
		a.runsCmd(),
		a.reviewCmd(),
		a.leaderboardCmd(),
		a.analyzeCmd(),
		a.serveCmd(),
		a.mcpCmd(),
	)
	addExamples(root)
	return root
}

// onClose registers a cleanup run when the command finishes.
func (a *app) onClose(f func() error) { a.closers = append(a.closers, f) }

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// secretEnv lists the environment variables whose values must never appear
// in any output.
var secretEnv = []string{
	"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY",
	"SERPAPI_API_KEY", "BRAVE_API_KEY", "TAVILY_API_KEY", "FIRECRAWL_API_KEY", "JINA_API_KEY",
	"CLAIMTRACE_TOKEN", "AZURE_OPENAI_API_KEY", "OPENROUTER_API_KEY",
}

// redact replaces every known secret value in s.
func (a *app) redact(s string) string {
	for _, k := range a.secrets() {
		s = strings.ReplaceAll(s, k, "[REDACTED]")
	}
	return s
}

func (a *app) secrets() []string {
	var out []string
	for _, name := range secretEnv {
		if v := os.Getenv(name); len(v) >= 6 {
			out = append(out, v)
		}
	}
	if a.cfg != nil {
		out = append(out, a.cfg.secretValues()...)
	}
	return out
}
