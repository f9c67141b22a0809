package main

import "github.com/spf13/cobra"

func (a *app) runCmd() *cobra.Command {
	return pending("run", "Run baseline agents over benchmark tasks", 7)
}
