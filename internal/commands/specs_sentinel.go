package commands

// sentinelSpecs are SENTINEL and its subcommands, from Redis 7.0.15's src/commands/*.json.
var sentinelSpecs = []Spec{
	{
		Name: "sentinel", Arity: -2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "A container for Sentinel commands",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "Depends on subcommand.",
	},
	{
		Name: "sentinel|ckquorum", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Check for a Sentinel quorum",
		Since:   "2.8.4", Group: "sentinel",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		// Redis 7.2 made the arity -4 (a parameter after GET or SET).
		Name: "sentinel|config", Arity: -3, Arity72: -4,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Configure Sentinel",
		Since:   "6.2.0", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "set_or_get", Type: "oneof", Args: []Arg{
				{Name: "set_param_value", Type: "block", Token: "SET", Flags: ArgMultiple, Args: []Arg{
					{Name: "parameter", Type: "string"},
					{Name: "value", Type: "string"},
				}},
				{Name: "parameter", Type: "string", Token: "GET", Flags: ArgMultiple},
			}},
		},
	},
	{
		Name: "sentinel|debug", Arity: -2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "List or update the current configurable parameters",
		Since:   "7.0.0", Group: "sentinel",
		Complexity: "O(N) where N is the number of configurable parameters",
		Args: []Arg{
			{Name: "parameter_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "parameter", Type: "string"},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		// go-sentinel's extension (not in Redis): the help line is the
		// summary, as SENTINEL HELP keeps redis-sentinel 7.0.15's text.
		Name: "sentinel|explain", Arity: -3, Unlisted: true,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Explain where a master stands in the SDOWN, ODOWN, vote and failover pipeline, and why it is not further (go-sentinel extension)",
		Since:   "7.0.15", Group: "sentinel",
		Complexity: "O(N) where N is the number of replicas and Sentinels of the master",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
			{Name: "format", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "text", Type: "pure-token", Token: "TEXT"},
				{Name: "json", Type: "pure-token", Token: "JSON"},
				{Name: "map", Type: "pure-token", Token: "MAP"},
			}},
		},
	},
	{
		Name: "sentinel|failover", Arity: 3, ExtensionArgs: 1, // COORDINATED (Valkey 9)
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Force a failover",
		Since:   "2.8.4", Group: "sentinel",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|flushconfig", Arity: 2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Rewrite configuration file",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
	},
	{
		Name: "sentinel|get-master-addr-by-name", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Get port and address of a master",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|help", Arity: 2,
		Flags:   FlagLoading | FlagStale | FlagSentinel | FlagOnlySentinel,
		Summary: "Show helpful text about the different subcommands",
		Since:   "6.2.0", Group: "sentinel",
		Complexity: "O(1)",
	},
	{
		Name: "sentinel|info-cache", Arity: -3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Get cached INFO from the instances in the deployment",
		Since:   "3.2.0", Group: "sentinel",
		Complexity: "O(N) where N is the number of instances",
		Args: []Arg{
			{Name: "nodename", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "sentinel|is-master-down-by-addr", Arity: 6,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Check if a master is down",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "ip", Type: "string"},
			{Name: "port", Type: "integer"},
			{Name: "current-epoch", Type: "integer"},
			{Name: "runid", Type: "string"},
		},
	},
	{
		// go-sentinel's extension between go-sentinels (not in Redis):
		// the lease a master-following proxy needs from a majority
		// (docs/proxy.md). redis-sentinel answers it with an error.
		Name: "sentinel|lease", Arity: -7, Unlisted: true,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Grant leases on masters to another Sentinel's proxy (go-sentinel extension)",
		Since:   "7.0.15", Group: "sentinel",
		Complexity: "O(N) where N is the number of masters asked about",
		Args: []Arg{
			{Name: "runid", Type: "string"},
			{Name: "lease-ms", Type: "integer"},
			{Name: "target", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "ip", Type: "string"},
				{Name: "port", Type: "integer"},
				{Name: "config-epoch", Type: "integer"},
			}},
		},
	},
	{
		Name: "sentinel|master", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Shows the state of a master",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|masters", Arity: 2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "List the monitored masters",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(N) where N is the number of masters",
	},
	{
		Name: "sentinel|monitor", Arity: 6,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Start monitoring",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "name", Type: "string"},
			{Name: "ip", Type: "string"},
			{Name: "port", Type: "integer"},
			{Name: "quorum", Type: "integer"},
		},
	},
	{
		Name: "sentinel|myid", Arity: 2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Get the Sentinel instance ID",
		Since:   "6.2.0", Group: "sentinel",
		Complexity: "O(1)",
	},
	{
		Name: "sentinel|pending-scripts", Arity: 2,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Get information about pending scripts",
		Since:   "2.8.4", Group: "sentinel",
	},
	{
		Name: "sentinel|remove", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Stop monitoring",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|replicas", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "List the monitored replicas",
		Since:   "5.0.0", Group: "sentinel",
		Complexity: "O(N) where N is the number of replicas",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|reset", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Reset masters by name pattern",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(N) where N is the number of monitored masters",
		Args: []Arg{
			{Name: "pattern", Type: "pattern"},
		},
	},
	{
		Name: "sentinel|sentinels", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "List the Sentinel instances",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(N) where N is the number of Sentinels",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
	{
		Name: "sentinel|set", Arity: -5,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Change the configuration of a monitored master",
		Since:   "2.8.4", Group: "sentinel",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
			{Name: "option_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "option", Type: "string"},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "sentinel|simulate-failure", Arity: -3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "Simulate failover scenarios",
		Since:   "3.2.0", Group: "sentinel",
		Args: []Arg{
			{Name: "mode", Type: "oneof", Flags: ArgOptional | ArgMultiple, Args: []Arg{
				{Name: "crash-after-election", Type: "pure-token"},
				{Name: "crash-after-promotion", Type: "pure-token"},
				{Name: "help", Type: "pure-token"},
			}},
		},
	},
	{
		Name: "sentinel|slaves", Arity: 3,
		Flags:   FlagAdmin | FlagSentinel | FlagOnlySentinel,
		Summary: "List the monitored slaves",
		Since:   "2.8.0", Group: "sentinel",
		Complexity:      "O(N) where N is the number of slaves",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "5.0.0",
		ReplacedBy:      "`SENTINEL REPLICAS`",
		Args: []Arg{
			{Name: "master-name", Type: "string"},
		},
	},
}
