package commands

// pubsubSpecs are the pub/sub commands, from Redis 7.0.15's src/commands/*.json.
var pubsubSpecs = []Spec{
	{
		Name: "psubscribe", Arity: -2,
		Flags:   FlagPubsub | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Listen for messages published to channels matching the given patterns",
		Since:   "2.0.0", Group: "pubsub",
		Complexity: "O(N) where N is the number of patterns the client is already subscribed to.",
		Args: []Arg{
			{Name: "pattern", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "pattern", Type: "pattern"},
			}},
		},
	},
	{
		Name: "publish", Arity: 3,
		Flags:   FlagPubsub | FlagLoading | FlagStale | FlagFast | FlagMayReplicate | FlagSentinel,
		Summary: "Post a message to a channel",
		Since:   "2.0.0", Group: "pubsub",
		Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
		Args: []Arg{
			{Name: "channel", Type: "string"},
			{Name: "message", Type: "string"},
		},
	},
	{
		Name: "punsubscribe", Arity: -1,
		Flags:   FlagPubsub | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Stop listening for messages posted to channels matching the given patterns",
		Since:   "2.0.0", Group: "pubsub",
		Complexity: "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
		Args: []Arg{
			{Name: "pattern", Type: "pattern", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "subscribe", Arity: -2,
		Flags:   FlagPubsub | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Listen for messages published to the given channels",
		Since:   "2.0.0", Group: "pubsub",
		Complexity: "O(N) where N is the number of channels to subscribe to.",
		Args: []Arg{
			{Name: "channel", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "unsubscribe", Arity: -1,
		Flags:   FlagPubsub | FlagNoscript | FlagLoading | FlagStale | FlagSentinel,
		Summary: "Stop listening for messages posted to the given channels",
		Since:   "2.0.0", Group: "pubsub",
		Complexity: "O(N) where N is the number of clients already subscribed to a channel.",
		Args: []Arg{
			{Name: "channel", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
}
