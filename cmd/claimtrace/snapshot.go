package main

import "github.com/spf13/cobra"

func (a *app) snapshotCmd() *cobra.Command {
	return pending("snapshot", "Freeze every cited URL of reports into a snapshot", 2)
}
