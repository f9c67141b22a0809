package main

import "github.com/spf13/cobra"

func (a *app) importCmd() *cobra.Command {
	return pending("import", "Import provider citation output as report and graph", 5)
}
