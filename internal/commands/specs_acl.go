package commands

// aclSpecs are ACL and its subcommands, from Redis 7.0.15's src/commands/*.json.
var aclSpecs = []Spec{
	{
		Name: "acl", Arity: -2,
		Flags:   FlagSentinel,
		Summary: "A container for Access List Control commands ",
		Since:   "6.0.0", Group: "server",
		Complexity: "Depends on subcommand.",
	},
	{
		Name: "acl|cat", Arity: -2,
		Flags:   FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "List the ACL categories or the commands inside a category",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(1) since the categories and commands are a fixed set.",
		Args: []Arg{
			{Name: "categoryname", Type: "string", Flags: ArgOptional},
		},
	},
	{
		Name: "acl|deluser", Arity: -3,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Remove the specified ACL users and the associated rules",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(1) amortized time considering the typical user.",
		Args: []Arg{
			{Name: "username", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "acl|dryrun", Arity: -4,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Returns whether the user can execute the given command without executing the command.",
		Since:   "7.0.0", Group: "server",
		Complexity: "O(1).",
		Args: []Arg{
			{Name: "username", Type: "string"},
			{Name: "command", Type: "string"},
			{Name: "arg", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "acl|genpass", Arity: -2,
		Flags:   FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Generate a pseudorandom secure password to use for ACL users",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "bits", Type: "integer", Flags: ArgOptional},
		},
	},
	{
		Name: "acl|getuser", Arity: 3,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Get the rules for a specific ACL user",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of password, command and pattern rules that the user has.",
		History:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}},
		Args: []Arg{
			{Name: "username", Type: "string"},
		},
	},
	{
		Name: "acl|help", Arity: 2,
		Flags:   FlagLoading | FlagStale | FlagSentinel,
		Summary: "Show helpful text about the different subcommands",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(1)",
	},
	{
		Name: "acl|list", Arity: 2,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "List the current ACL rules in ACL config file format",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of configured users.",
	},
	{
		Name: "acl|load", Arity: 2,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Reload the ACLs from the configured ACL file",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of configured users.",
	},
	{
		Name: "acl|log", Arity: -2,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "List latest events denied because of ACLs in place",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N) with N being the number of entries shown.",
		Args: []Arg{
			{Name: "operation", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "count", Type: "integer"},
				{Name: "reset", Type: "pure-token", Token: "RESET"},
			}},
		},
	},
	{
		Name: "acl|save", Arity: 2,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Save the current ACL rules in the configured ACL file",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of configured users.",
	},
	{
		Name: "acl|setuser", Arity: -3,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Modify or create the rules for a specific ACL user",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of rules provided.",
		History:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and key based permissions."}},
		Args: []Arg{
			{Name: "username", Type: "string"},
			{Name: "rule", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "acl|users", Arity: 2,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "List the username of all the configured ACL rules",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(N). Where N is the number of configured users.",
	},
	{
		Name: "acl|whoami", Arity: 2,
		Flags:   FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Return the name of the user associated to the current connection",
		Since:   "6.0.0", Group: "server",
		Complexity: "O(1)",
	},
}
