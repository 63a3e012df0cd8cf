package config

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// secretMask replaces every password in Format's output.
const secretMask = "******"

// Format returns a human-readable dump of c for `go-sentinel check`: the
// effective generic settings, then the Sentinel state, as config-style
// lines. Passwords (requirepass, auth-pass, sentinel-pass, TLS key
// passphrases and the password rules of `user` lines) are shown as ******.
func Format(c *Config) string {
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%-26s %v\n", k, v) }
	str := func(k, v string) {
		if v == "" {
			kv(k, `""`)
			return
		}
		kv(k, splitargs.Quote(v))
	}
	secret := func(k, v string) {
		if v == "" {
			kv(k, "(not set)")
			return
		}
		kv(k, secretMask)
	}
	yn := settings.YesNoText

	fmt.Fprintf(&b, "# config file %s\n", c.File)
	if c.WorkDir != "" {
		fmt.Fprintf(&b, "# working directory %s\n", c.WorkDir)
	}
	b.WriteString("\n# server\n")
	for i := range directiveTable {
		d := &directiveTable[i]
		switch {
		case d.each != nil:
			for _, words := range d.each(&c.Server) {
				if d.mask != nil {
					words = d.mask(words)
				}
				kv(d.name, quoteWords(words))
			}
		case d.get != nil:
			kv(d.name, d.showText(d.get(&c.Server)))
		}
	}

	p := c.Sentinel
	b.WriteString("\n# sentinel\n")
	if p.MyID == "" {
		kv("myid", "(generated at start-up)")
	} else {
		kv("myid", p.MyID)
	}
	kv("current-epoch", p.CurrentEpoch)
	kv("deny-scripts-reconfig", yn(p.DenyScriptsReconfig))
	kv("resolve-hostnames", yn(p.ResolveHostnames))
	kv("announce-hostnames", yn(p.AnnounceHostnames))
	if p.AnnounceIP != "" {
		str("announce-ip", p.AnnounceIP)
	}
	if p.AnnouncePort != 0 {
		kv("announce-port", p.AnnouncePort)
	}
	if p.SentinelUser != "" {
		str("sentinel-user", p.SentinelUser)
	}
	if p.SentinelPass != "" {
		secret("sentinel-pass", p.SentinelPass)
	}
	kv(optionCommandSurface, c.CommandSurface.String()+" ("+c.CommandSurface.Describe()+")")
	formatState(&b, c)
	for _, m := range p.Masters {
		formatMaster(&b, m)
	}

	if len(c.Ignored) > 0 {
		fmt.Fprintf(&b, "\n# %d directive(s) accepted and ignored\n", len(c.Ignored))
		for _, l := range c.Ignored {
			fmt.Fprintf(&b, "#   %s:%d: %s\n", l.File, l.Num, l.Args[0])
		}
	}
	return b.String()
}

func formatMaster(b *strings.Builder, m settings.MasterSpec) {
	fmt.Fprintf(b, "\nmaster %s\n", splitargs.Quote(m.Name))
	row := func(k string, v any) { fmt.Fprintf(b, "  %-30s %v\n", k, v) }
	row("address", fmt.Sprintf("%s %d", m.Addr.Host, m.Addr.Port))
	row(settings.OptionQuorum, m.Quorum)
	row(settings.OptionDownAfter, m.DownAfterMs)
	row(settings.OptionFailoverTimeout, m.FailoverTimeoutMs)
	row(settings.OptionParallelSyncs, m.ParallelSyncs)
	row(settings.OptionRebootDownAfter, m.RebootDownAfterMs)
	if m.ForgetReplicaAfterMs != 0 {
		row(settings.OptionForgetReplicaAfter, m.ForgetReplicaAfterMs)
	}
	if m.Voters != 0 {
		row(settings.OptionVoters, m.Voters)
	}
	if m.ForgetSentinelAfterMs != 0 {
		row(settings.OptionForgetSentinelAfter, m.ForgetSentinelAfterMs)
	}
	if m.NotificationScript != "" {
		row(settings.OptionNotificationScript, splitargs.Quote(m.NotificationScript))
	}
	if m.ClientReconfigScript != "" {
		row(settings.OptionClientReconfigScript, splitargs.Quote(m.ClientReconfigScript))
	}
	if m.AuthUser != "" {
		row(settings.OptionAuthUser, splitargs.Quote(m.AuthUser))
	}
	if m.AuthPass != "" {
		row(settings.OptionAuthPass, secretMask)
	}
	row("config-epoch", m.ConfigEpoch)
	row("leader-epoch", m.LeaderEpoch)
	for _, r := range m.KnownReplicas {
		row("known-replica", fmt.Sprintf("%s %d", r.Host, r.Port))
	}
	for _, s := range m.KnownSentinels {
		row("known-sentinel", fmt.Sprintf("%s %d %s", s.Addr.Host, s.Addr.Port, s.RunID))
	}
	for _, r := range m.RenameCommands {
		row(settings.OptionRenameCommand, quoteWords([]string{r.Command, r.Renamed}))
	}
}

// maskUserRules hides the password rules of a `user` line: ">pass",
// "<pass", "#hash" and "!hash".
func maskUserRules(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if i > 0 && w != "" && strings.ContainsRune("><#!", rune(w[0])) {
			w = w[:1] + secretMask
		}
		out[i] = w
	}
	return out
}
