package main

import "github.com/spf13/cobra"

func (a *app) provCmd() *cobra.Command {
	return pending("prov", "Query and export provenance graphs", 5)
}
