package main

import "github.com/spf13/cobra"

func (a *app) llmCmd() *cobra.Command {
	return pending("llm", "Check a model endpoint", 3)
}
