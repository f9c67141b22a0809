package main

import "github.com/spf13/cobra"

func (a *app) judgeCmd() *cobra.Command {
	return pending("judge", "Evaluate and calibrate judges on labelled pairs", 4)
}
