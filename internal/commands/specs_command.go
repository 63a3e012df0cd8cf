package commands

// commandSpecs are COMMAND and its subcommands, from Redis 7.0.15's src/commands/*.json.
var commandSpecs = []Spec{
	{
		Name: "command", Arity: -1,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Tips:       []string{"nondeterministic_output_order"},
		Summary:    "Get array of Redis command details",
		Since:      "2.8.13", Group: "server",
		Complexity: "O(N) where N is the total number of Redis commands",
	},
	{
		Name: "command|count", Arity: 2,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Summary:    "Get total number of Redis commands",
		Since:      "2.8.13", Group: "server",
		Complexity: "O(1)",
	},
	{
		Name: "command|docs", Arity: -2,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Tips:       []string{"nondeterministic_output_order"},
		Summary:    "Get array of specific Redis command documentation",
		Since:      "7.0.0", Group: "server",
		Complexity: "O(N) where N is the number of commands to look up",
		Args: []Arg{
			{Name: "command-name", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "command|getkeys", Arity: -4,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Summary:    "Extract keys given a full Redis command",
		Since:      "2.8.13", Group: "server",
		Complexity: "O(N) where N is the number of arguments to the command",
	},
	{
		Name: "command|getkeysandflags", Arity: -4,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Summary:    "Extract keys and access flags given a full Redis command",
		Since:      "7.0.0", Group: "server",
		Complexity: "O(N) where N is the number of arguments to the command",
	},
	{
		Name: "command|help", Arity: 2,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Summary:    "Show helpful text about the different subcommands",
		Since:      "5.0.0", Group: "server",
		Complexity: "O(1)",
	},
	{
		Name: "command|info", Arity: -2,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Tips:       []string{"nondeterministic_output_order"},
		Summary:    "Get array of specific Redis command details, or all when no argument is given.",
		Since:      "2.8.13", Group: "server",
		Complexity: "O(N) where N is the number of commands to look up",
		History:    [][2]string{{"7.0.0", "Allowed to be called with no argument to get info on all commands."}},
		Args: []Arg{
			{Name: "command-name", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "command|list", Arity: -2,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatConnection,
		Tips:       []string{"nondeterministic_output_order"},
		Summary:    "Get an array of Redis command names",
		Since:      "7.0.0", Group: "server",
		Complexity: "O(N) where N is the total number of Redis commands",
		Args: []Arg{
			{Name: "filterby", Type: "oneof", Token: "FILTERBY", Flags: ArgOptional, Args: []Arg{
				{Name: "module-name", Type: "string", Token: "MODULE"},
				{Name: "category", Type: "string", Token: "ACLCAT"},
				{Name: "pattern", Type: "pattern", Token: "PATTERN"},
			}},
		},
	},
}
