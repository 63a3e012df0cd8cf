package commands

// serverSpecs are AUTH, HELLO, INFO, PING, ROLE and SHUTDOWN, from Redis 7.0.15's src/commands/*.json.
var serverSpecs = []Spec{
	{
		Name: "auth", Arity: -2,
		Flags:      FlagNoscript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagSentinel | FlagAllowBusy,
		Categories: CatConnection,
		Summary:    "Authenticate to the server",
		Since:      "1.0.0", Group: "connection",
		Complexity: "O(N) where N is the number of passwords defined for the user",
		History:    [][2]string{{"6.0.0", "Added ACL style (username and password)."}},
		Args: []Arg{
			{Name: "username", Type: "string", Since: "6.0.0", Flags: ArgOptional},
			{Name: "password", Type: "string"},
		},
	},
	{
		Name: "hello", Arity: -1,
		Flags:      FlagNoscript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagSentinel | FlagAllowBusy,
		Categories: CatConnection,
		Summary:    "Handshake with Redis",
		Since:      "6.0.0", Group: "connection",
		Complexity: "O(1)",
		History:    [][2]string{{"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."}},
		Args: []Arg{
			{Name: "arguments", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "protover", Type: "integer"},
				{Name: "username_password", Type: "block", Token: "AUTH", Flags: ArgOptional, Args: []Arg{
					{Name: "username", Type: "string"},
					{Name: "password", Type: "string"},
				}},
				{Name: "clientname", Type: "string", Token: "SETNAME", Flags: ArgOptional},
			}},
		},
	},
	{
		Name: "info", Arity: -1,
		Flags:      FlagLoading | FlagStale | FlagSentinel,
		Categories: CatDangerous,
		Tips:       []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
		Summary:    "Get information and statistics about the server",
		Since:      "1.0.0", Group: "server",
		Complexity: "O(1)",
		History:    [][2]string{{"7.0.0", "Added support for taking multiple section arguments."}},
		Args: []Arg{
			{Name: "section", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "ping", Arity: -1,
		Flags:      FlagFast | FlagSentinel,
		Categories: CatConnection,
		Tips:       []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Summary:    "Ping the server",
		Since:      "1.0.0", Group: "connection",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "message", Type: "string", Flags: ArgOptional},
		},
	},
	{
		Name: "role", Arity: 1,
		Flags:      FlagNoscript | FlagLoading | FlagStale | FlagFast | FlagSentinel,
		Categories: CatAdmin | CatDangerous,
		Summary:    "Return the role of the instance in the context of replication",
		Since:      "2.8.12", Group: "server",
		Complexity: "O(1)",
	},
	{
		Name: "shutdown", Arity: -1,
		Flags:   FlagAdmin | FlagNoscript | FlagLoading | FlagStale | FlagNoMulti | FlagSentinel | FlagAllowBusy,
		Summary: "Synchronously save the dataset to disk and then shut down the server",
		Since:   "1.0.0", Group: "server",
		Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
		History:    [][2]string{{"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."}},
		Args: []Arg{
			{Name: "nosave_save", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "nosave", Type: "pure-token", Token: "NOSAVE"},
				{Name: "save", Type: "pure-token", Token: "SAVE"},
			}},
			{Name: "now", Type: "pure-token", Token: "NOW", Since: "7.0.0", Flags: ArgOptional},
			{Name: "force", Type: "pure-token", Token: "FORCE", Since: "7.0.0", Flags: ArgOptional},
			{Name: "abort", Type: "pure-token", Token: "ABORT", Since: "7.0.0", Flags: ArgOptional},
		},
	},
}
