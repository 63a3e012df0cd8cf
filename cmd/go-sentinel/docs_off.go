//go:build !gendocs

package main

import "github.com/spf13/cobra"

// addDocsCommand does nothing in the daemon's build; built with -tags
// gendocs it adds the hidden `gendocs DIR` subcommand (docs.go).
func addDocsCommand(*cobra.Command) {}
