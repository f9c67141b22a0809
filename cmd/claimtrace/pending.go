package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// pending builds a placeholder for a command whose implementation has not
// landed yet; it fails clearly instead of pretending to work.
func pending(use, short string, issue int) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short + " (not yet available)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet (tracked in issue %d)", cmd.CommandPath(), issue)
		},
	}
}
