package monitor

// This file applies the commands about the monitored masters: SENTINEL
// MONITOR, REMOVE, RESET and SET, with the errors they answer.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/glob"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Errors of the runtime commands. Their texts are Redis's reply texts
// after the "ERR " code, which only the RESP layer adds.
var (
	ErrInvalidQuorum      = errors.New("Invalid quorum")
	ErrInvalidPort        = errors.New("Invalid port")
	ErrQuorumTooSmall     = errors.New("Quorum must be 1 or greater.")
	ErrInvalidAddress     = errors.New("Invalid IP address or hostname specified")
	ErrDuplicateMaster    = errors.New("Duplicate master name.")
	ErrInvalidPortNumber  = errors.New("Invalid port number.")
	ErrScriptsDenied      = errors.New("Reconfiguration of scripts path is denied for security reasons. Check the deny-scripts-reconfig configuration directive in your Sentinel configuration")
	ErrNotificationScript = errors.New("Notification script seems non existing or non executable")
	ErrReconfigScript     = errors.New("Client reconfiguration script seems non existing or non executable")
	ErrUnknownSimulation  = errors.New("Unknown failure simulation specified")
	ErrConfigSetShape     = errors.New("Only SENTINEL CONFIG GET <param> [<param> <param> ...]/ SET <param> <value> [<param> <value> ...] are supported.")
)

// ArgError is a bad option or value of SENTINEL SET, DEBUG or CONFIG SET,
// with Redis's wording.
type ArgError struct {
	Cmd       string // "SET", "DEBUG", "CONFIG SET"
	Option    string
	Value     string
	Unknown   bool // unknown option / missing value rather than a bad value
	Duplicate bool // the option was given twice (CONFIG SET)
}

func (e *ArgError) Error() string {
	switch {
	case e.Duplicate:
		return fmt.Sprintf("Duplicate argument '%s' to SENTINEL CONFIG SET", e.Option)
	case e.Cmd == "CONFIG SET" && e.Unknown:
		return fmt.Sprintf("Invalid argument '%s' to SENTINEL CONFIG SET", e.Option)
	case e.Cmd == "CONFIG SET":
		return fmt.Sprintf("Invalid value '%s' to SENTINEL CONFIG SET '%s'", e.Value, e.Option)
	case e.Unknown:
		return fmt.Sprintf("Unknown option or number of arguments for SENTINEL %s '%s'", e.Cmd, e.Option)
	default:
		return fmt.Sprintf("Invalid argument '%s' for SENTINEL %s '%s'", e.Value, e.Cmd, e.Option)
	}
}

// monitorMaster starts monitoring a new master (Monitor). It emits
// `+monitor` and persists.
func (s *Sentinel) monitorMaster(now int64, in msg.Monitor) error {
	name, host, port, quorum := in.Name, in.Host, in.Port, in.Quorum
	if quorum <= 0 {
		return ErrQuorumTooSmall
	}
	a, ok := s.addrs.validAddr(settings.Addr{Host: host, Port: 0})
	if !ok {
		return ErrInvalidAddress
	}
	if port < 0 || port > 65535 {
		return ErrInvalidPortNumber
	}
	if s.masters[name] != nil {
		return ErrDuplicateMaster
	}
	a.Port = port
	spec := settings.NewMasterSpec(name, a, quorum)
	spec.DownAfterMs = s.timing.DefaultDownAfterMs
	spec.FailoverTimeoutMs = s.timing.DefaultFailoverTimeoutMs
	m := s.addMaster(spec, now)
	s.out.persist("monitor")
	s.event(event.LevelWarning, event.Monitor, &m.instance, fmt.Sprintf(" quorum %d", m.settings.Quorum))
	return nil
}

// removeMaster stops monitoring a master (Remove).
func (s *Sentinel) removeMaster(name string) error {
	m, err := s.master(name)
	if err != nil {
		return err
	}
	s.event(event.LevelWarning, event.Unmonitor, &m.instance, "")
	for _, r := range m.sortedReplicas() {
		s.links.release(r)
	}
	for _, si := range m.sortedSentinels() {
		s.links.release(si)
	}
	s.links.release(&m.instance)
	m.removed = true
	delete(s.masters, name)
	for k, n := range s.names {
		if n == name {
			s.names = append(s.names[:k], s.names[k+1:]...)
			break
		}
	}
	s.out.persist("remove")
	return nil
}

// resetMasters forgets the replicas, Sentinels and failover state of
// every master whose name matches the glob pattern (Reset) and returns
// how many. It does not persist, as Redis does not.
func (s *Sentinel) resetMasters(now int64, pattern string) int {
	n := 0
	for _, name := range slices.Clone(s.names) {
		if !glob.Match(pattern, name, false) {
			continue
		}
		m := s.masters[name]
		s.resetMaster(m, false, now)
		s.event(event.LevelWarning, event.ResetMaster, &m.instance, "")
		n++
	}
	return n
}

// setOp is one validated SENTINEL SET option, applied after every option
// was checked.
type setOp struct {
	args  []string // option and value(s) as given, for the +set event
	apply func()
}

// setOptions changes master options (Set). Unlike Redis it checks every
// pair before applying any, so a bad pair changes nothing. A script path
// missing from in.Executables is not executable.
func (s *Sentinel) setOptions(in msg.Set) error {
	name, args, exe := in.Name, in.Args, in.Executables
	m, err := s.master(name)
	if err != nil {
		return err
	}
	var ops []setOp
	for j := 0; j < len(args); j++ {
		opt := args[j]
		more := len(args) - 1 - j
		lopt := strings.ToLower(opt)
		if rule, ok := settings.Number(lopt); ok && more > 0 {
			v, err := strconv.ParseInt(args[j+1], 10, 64)
			if err == nil {
				var probe settings.Master
				err = rule.Set(&probe, v)
			}
			if err != nil {
				return &ArgError{Cmd: "SET", Option: opt, Value: args[j+1]}
			}
			ops = append(ops, setOp{args[j : j+2], func() { _ = rule.Set(&m.settings, v); m.numberSet(lopt) }})
			j++
			continue
		}
		if rule, ok := settings.YesNo(lopt); ok && more > 0 {
			v := args[j+1]
			if err := rule.Set(&settings.Master{}, v); err != nil {
				return &ArgError{Cmd: "SET", Option: opt, Value: v}
			}
			ops = append(ops, setOp{args[j : j+2], func() { _ = rule.Set(&m.settings, v) }})
			j++
			continue
		}
		switch {
		case (lopt == settings.OptionNotificationScript || lopt == settings.OptionClientReconfigScript) && more > 0:
			v := args[j+1]
			if s.global.DenyScriptsReconfig {
				return ErrScriptsDenied
			}
			if v != "" && !exe[v] {
				if lopt == settings.OptionNotificationScript {
					return ErrNotificationScript
				}
				return ErrReconfigScript
			}
			if lopt == settings.OptionNotificationScript {
				ops = append(ops, setOp{args[j : j+2], func() { m.settings.NotificationScript = v }})
			} else {
				ops = append(ops, setOp{args[j : j+2], func() { m.settings.ClientReconfigScript = v }})
			}
			j++
		case lopt == settings.OptionAuthPass && more > 0:
			v := args[j+1]
			ops = append(ops, setOp{[]string{opt, "******"}, func() { m.settings.AuthPass = v; s.links.closeData(m) }})
			j++
		case lopt == settings.OptionAuthUser && more > 0:
			v := args[j+1]
			ops = append(ops, setOp{args[j : j+2], func() { m.settings.AuthUser = v; s.links.closeData(m) }})
			j++
		case lopt == settings.OptionRenameCommand && more > 1:
			from, to := args[j+1], args[j+2]
			if from == "" || to == "" {
				bad := to
				if to != "" {
					bad = from
				}
				return &ArgError{Cmd: "SET", Option: opt, Value: bad}
			}
			ops = append(ops, setOp{args[j : j+3], func() { m.setRename(from, to) }})
			j += 2
		case (lopt == settings.OptionProxy || lopt == settings.OptionProxyReplicas) && more > 0:
			v := args[j+1]
			as, err := settings.ParseProxyAddrs(v)
			dst, other := &m.settings.Proxy, m.settings.ProxyReplicas // the proxy's and the read port's addresses differ
			if lopt == settings.OptionProxyReplicas {
				dst, other = &m.settings.ProxyReplicas, m.settings.Proxy
			}
			if err != nil || settings.SharesAddr(as, other) {
				return &ArgError{Cmd: "SET", Option: opt, Value: v}
			}
			ops = append(ops, setOp{args[j : j+2], func() { *dst = as }})
			j++
		default:
			return &ArgError{Cmd: "SET", Option: opt, Unknown: true}
		}
	}
	for _, op := range ops {
		op.apply()
		s.event(event.LevelWarning, event.Set, &m.instance, " "+strings.Join(op.args, " "))
	}
	s.out.persist("set")
	return nil
}

// numberSet carries a numeric option SENTINEL SET stored in m.settings
// to the state derived from it: down-after-milliseconds to every object
// under the master.
func (m *master) numberSet(option string) {
	if option != settings.OptionDownAfter {
		return
	}
	v := m.settings.DownAfterMs
	m.downAfter = v
	for _, r := range m.replicas {
		r.downAfter = v
	}
	for _, si := range m.sentinels {
		si.downAfter = v
	}
}

// setRename maps a command for m's instances; mapping a command to itself
// removes the mapping.
func (m *master) setRename(from, to string) {
	for k, r := range m.settings.RenameCommands {
		if strings.EqualFold(r.Command, from) {
			m.settings.RenameCommands = append(m.settings.RenameCommands[:k], m.settings.RenameCommands[k+1:]...)
			break
		}
	}
	if !strings.EqualFold(from, to) {
		m.settings.RenameCommands = append(m.settings.RenameCommands, settings.Rename{Command: from, Renamed: to})
	}
}
