package links

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// dial connects to addr as the link's TCP (and, with a TLS config, TLS)
// connection. It returns the connection to talk over and the TCP connection
// under it (the same value without TLS); closing raw aborts any I/O on conn
// at once, without a TLS close_notify that could block.
//
// A hostname is resolved now, at every dial, through Options.LookupHost
// (never from an address kept from an earlier dial), and its addresses
// are tried in the order returned, each within the dial timeout. ip is
// the address dialed: the one connected to, or, when none answered, the
// first the name resolved to; it is "" when addr.Host is an IP or did
// not resolve. So a name that moved is followed at the next reconnect,
// and the core learns where it points even when the dial fails.
func (l *Links) dial(ctx context.Context, addr settings.Addr) (conn, raw net.Conn, ip string, err error) {
	d := net.Dialer{Timeout: l.opts.DialTimeout}
	if l.opts.SourceAddr != "" {
		src := net.ParseIP(l.opts.SourceAddr)
		if src == nil {
			return nil, nil, "", fmt.Errorf("%w: %q", ErrSourceAddr, l.opts.SourceAddr)
		}
		d.LocalAddr = &net.TCPAddr{IP: src}
	}
	ips, named, err := l.resolve(ctx, addr.Host)
	if err != nil {
		return nil, nil, "", err
	}
	port := strconv.Itoa(addr.Port)
	for _, cand := range ips {
		raw, err = d.DialContext(ctx, "tcp", net.JoinHostPort(cand, port))
		if err == nil {
			if named {
				ip = cand
			}
			break
		}
	}
	if named && ip == "" {
		ip = ips[0]
	}
	if err != nil {
		return nil, nil, ip, err
	}
	if l.opts.TLSConfig == nil {
		return raw, raw, ip, nil
	}
	cfg := l.opts.TLSConfig.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = addr.Host
	}
	tc := tls.Client(raw, cfg)
	hctx, cancel := context.WithTimeout(ctx, l.opts.DialTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		_ = raw.Close()
		return nil, nil, ip, fmt.Errorf("tls handshake: %w", err)
	}
	return tc, raw, ip, nil
}

// resolve returns the addresses to dial for host: host itself when it is
// an IP (named false), else what Options.LookupHost answers now.
func (l *Links) resolve(ctx context.Context, host string) (ips []string, named bool, err error) {
	if _, err := netip.ParseAddr(host); err == nil {
		return []string{host}, false, nil
	}
	ips, err = l.opts.LookupHost(ctx, host)
	if err == nil && len(ips) == 0 {
		err = ErrNoAddress
	}
	if err != nil {
		return nil, true, fmt.Errorf("resolve %s: %w", host, err)
	}
	return ips, true, nil
}

// linkReadBuffer sizes the read buffer a TLS link keeps (tls.Conn reads
// into it while the link waits). A plain TCP link keeps none: it waits for
// its socket to become readable and then reads into a shared buffer of
// readChunkSize (chunkReader). A reply longer than the buffer is read in
// several reads and kept whole only until it is complete.
const linkReadBuffer = 1024

// appendHandshake appends to buf what a link sends first: `AUTH [user]
// pass` (when a password is set) and `CLIENT SETNAME <name>` (when named),
// the first word of each renamed per the link's Renames. Nothing else:
// Sentinel never sends HELLO, CLIENT SETINFO or SELECT.
func appendHandshake(buf []byte, spec msg.OpenLink) []byte {
	if spec.Auth.Pass != "" {
		args := []string{renamed(spec.Renames, "AUTH")}
		if spec.Auth.User != "" {
			args = append(args, spec.Auth.User)
		}
		buf = appendCommand(buf, append(args, spec.Auth.Pass)...)
	}
	if spec.ClientName != "" {
		buf = appendCommand(buf, renamed(spec.Renames, "CLIENT"), "SETNAME", spec.ClientName)
	}
	return buf
}

// handshakeLen is how many commands appendHandshake writes for spec.
func handshakeLen(spec msg.OpenLink) int {
	n := 0
	if spec.Auth.Pass != "" {
		n++
	}
	if spec.ClientName != "" {
		n++
	}
	return n
}

// renamed returns the name cmd (upper case) is known by on the instance.
func renamed(renames map[string]string, cmd string) string {
	if r, ok := renames[cmd]; ok {
		return r
	}
	return cmd
}

// localAddr is the local end of a TCP connection as an Addr (IPv6 without
// brackets or zone).
func localAddr(c net.Conn) (settings.Addr, bool) {
	t, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return settings.Addr{}, false
	}
	return settings.Addr{Host: t.IP.String(), Port: t.Port}, true
}
