package main

import "github.com/spf13/cobra"

func (a *app) auditCmd() *cobra.Command {
	return pending("audit", "Audit a report as an AAR provenance graph", 5)
}
