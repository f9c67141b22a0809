package main

import "github.com/spf13/cobra"

func (a *app) configCmd() *cobra.Command {
	return pending("config", "Print the effective configuration, keys redacted", 3)
}
