package main

import "github.com/spf13/cobra"

func (a *app) demoCmd() *cobra.Command {
	return pending("demo", "Run the bundled offline example", 2)
}
