package main

import "github.com/spf13/cobra"

// addShellSupport prepares root for the shell completions and the man pages
// generated from it: the completions offer files for root's first argument
// (the config path) next to the subcommand names, and builds tagged gendocs
// gain the hidden `gendocs DIR` subcommand that writes both.
func addShellSupport(root *cobra.Command) {
	root.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	addDocsCommand(root)
}
