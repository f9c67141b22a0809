package main

import "github.com/spf13/cobra"

func (a *app) gateCmd() *cobra.Command {
	return pending("gate", "Fail CI when a report's provenance is below thresholds", 5)
}
