package main

import "github.com/spf13/cobra"

func (a *app) datasetCmd() *cobra.Command {
	return pending("dataset", "Download and inspect ReportBench datasets", 2)
}
