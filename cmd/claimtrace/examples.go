package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// addExamples gives each command that has none the examples its --help
// shows, so every command a user runs has one (TestEveryCommandHasAnExample
// holds the tree to it). Examples written beside a command's definition
// win; these are kept here, in one place, for the commands defined without.
func addExamples(root *cobra.Command) {
	examples := map[string]string{
		"demo": `  claimtrace demo                     # prints the figures; the example is removed after
  claimtrace demo --out demo          # keeps the example, results and store in demo/
  claimtrace demo --json | jq .citation.precision`,
		"runs": `  claimtrace runs
  claimtrace runs --store demo/claimtrace.db --json`,
		"llm check": `  claimtrace llm check --model openai:gpt-4o-mini
  claimtrace llm check --model gemini:gemini-2.5-flash --web
  claimtrace llm check                # the default model, llm.model in the config`,
		"prov why": `  claimtrace audit report.md --out audit && claimtrace prov why c12 audit/graph.json
  claimtrace prov why c3 results/graphs/2312.04861.json --json`,
		"prov contradictions": `  claimtrace prov contradictions audit/graph.json
  claimtrace prov contradictions --detect=false --json results/graphs/2312.04861.json`,
		"prov orphans": `  claimtrace prov orphans audit/graph.json
  claimtrace prov orphans --json results/graphs/2312.04861.json`,
		"prov export": `  claimtrace prov export --format prov-json audit/graph.json > prov.json
  claimtrace prov export --format dot --out graph.dot audit/graph.json && dot -Tsvg graph.dot > graph.svg
  claimtrace prov export --format graphml --out graph.graphml results/graphs/2312.04861.json`,
		"prov validate": `  claimtrace prov validate audit/graph.json
  claimtrace prov validate prov.json   # a PROV-JSON document`,
		"prov schema": `  claimtrace prov schema > aar-graph.schema.json`,
		"build classify": `  claimtrace build classify --dir mybench
  claimtrace build classify --dir mybench --llm --model openai:gpt-4o-mini`,
		"build sources": `  claimtrace build sources --dir mybench
  claimtrace build sources --dir mybench --interval 5s --max-download-bytes 104857600`,
		"build prompts": `  claimtrace build prompts --dir mybench`,
		"build domains": `  claimtrace build domains --dir mybench
  claimtrace build domains --dir mybench --llm`,
		"build sample": `  claimtrace build sample --dir mybench
  claimtrace build sample --dir mybench --per-domain 5 --seed 7`,
		"build all": `  claimtrace build all --snapshot arxiv-metadata-oai-snapshot.json.gz --dir mybench
  claimtrace build all --snapshot arxiv-metadata-oai-snapshot.json.gz --dir mybench --from refs   # after fixing a stage`,
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		if ex, ok := examples[path]; ok && c.Example == "" {
			c.Example = ex
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
