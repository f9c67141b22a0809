package main

import "github.com/spf13/cobra"

func (a *app) buildCmd() *cobra.Command {
	return pending("build", "Build a ReportBench-format dataset from arXiv", 6)
}
