package main

import "github.com/spf13/cobra"

func (a *app) parseCmd() *cobra.Command {
	return pending("parse", "Parse a report into claims and citations", 2)
}
