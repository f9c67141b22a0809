package main

import "github.com/spf13/cobra"

func (a *app) evalCmd() *cobra.Command {
	return pending("eval", "Score reports against a ReportBench dataset", 2)
}
