package links

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// dial connects to addr as the link's TCP (and, with a TLS config, TLS)
// connection. It returns the connection to talk over and the TCP connection
// under it (the same value without TLS); closing raw aborts any I/O on conn
// at once, without a TLS close_notify that could block.
func (l *Links) dial(ctx context.Context, addr monitor.Addr) (conn, raw net.Conn, err error) {
	d := net.Dialer{Timeout: l.opts.DialTimeout}
	if l.opts.SourceAddr != "" {
		ip := net.ParseIP(l.opts.SourceAddr)
		if ip == nil {
			return nil, nil, fmt.Errorf("%w: %q", ErrSourceAddr, l.opts.SourceAddr)
		}
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	raw, err = d.DialContext(ctx, "tcp", hostPort(addr))
	if err != nil {
		return nil, nil, err
	}
	if l.opts.TLSConfig == nil {
		return raw, raw, nil
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
		return nil, nil, fmt.Errorf("tls handshake: %w", err)
	}
	return tc, raw, nil
}

// linkReadBuffer and linkWriteBuffer size the bufio buffers of a link's
// connection. go-redis defaults to 32 KiB each, sized for data traffic; a
// link carries a PING a second, an INFO every ten (about 5 KiB from a real
// redis-server) and hellos of about 200 bytes, and go-redis reads a reply
// longer than the buffer in several reads (a bulk string larger than the
// buffer goes straight into its own allocation), so 1 KiB each keeps a
// Sentinel's 2 links per instance at a few KiB instead of 128 KiB.
const (
	linkReadBuffer  = 1024
	linkWriteBuffer = 1024
)

// clientOptions returns the go-redis options for one link over the already
// dialed conn. The client never dials by itself: its Dialer hands out conn
// once and then fails with ErrLinkRedial, so a lost connection ends the link.
// Nothing is sent on connect but the link's handshake (OnConnect): RESP2
// without credentials in the options, no CLIENT SETINFO, no maintenance
// notifications, no client name, DB 0; the HELLO go-redis always sends is
// suppressed by noHelloHook. Timeouts and retries are off: a slow instance
// just accumulates pending commands and the core decides when to give up.
// The dedicated pipeline pool is off too (it would dial a second connection
// for pipelines), as is the idle-connection reaper. Buffers are small
// (linkReadBuffer, linkWriteBuffer).
func (l *Links) clientOptions(lk *link, conn net.Conn) *redis.Options {
	var handed atomic.Bool
	return &redis.Options{
		Network: "tcp",
		Addr:    hostPort(lk.spec.Addr),
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			if handed.Swap(true) {
				return nil, ErrLinkRedial
			}
			return opaqueConn{conn}, nil
		},
		OnConnect:                lk.handshake,
		Protocol:                 2,
		DisableIdentity:          true,
		MaxRetries:               -1,
		DialTimeout:              l.opts.DialTimeout,
		DialerRetries:            1,
		ReadTimeout:              -1,
		WriteTimeout:             -1,
		ContextTimeoutEnabled:    false,
		PoolSize:                 1,
		PipelinePoolSize:         -1,
		ConnMaxIdleTime:          -1,
		ReadBufferSize:           linkReadBuffer,
		WriteBufferSize:          linkWriteBuffer,
		TLSConfig:                l.opts.TLSConfig,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// handshake is a command link's OnConnect: it sends, pipelined, `AUTH
// [user] pass` (when a password is set) and `CLIENT SETNAME <name>` (when
// named), with the first word of each renamed per the link's Renames.
// Error replies are ignored (with a wrong password the link stays up and
// its commands get NOAUTH replies); only a failed connection fails it.
func (lk *link) handshake(ctx context.Context, cn *redis.Conn) error {
	spec := lk.spec
	pipe := cn.Pipeline()
	if spec.Auth.Pass != "" {
		args := []any{renamed(spec.Renames, "AUTH")}
		if spec.Auth.User != "" {
			args = append(args, spec.Auth.User)
		}
		_ = pipe.Process(ctx, redis.NewRawCmd(ctx, append(args, spec.Auth.Pass)...))
	}
	if spec.ClientName != "" {
		_ = pipe.Process(ctx, redis.NewRawCmd(ctx, renamed(spec.Renames, "CLIENT"), "SETNAME", spec.ClientName))
	}
	if pipe.Len() == 0 {
		return nil
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		return err
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// renamed returns the name cmd (upper case) is known by on the instance.
func renamed(renames map[string]string, cmd string) string {
	if r, ok := renames[cmd]; ok {
		return r
	}
	return cmd
}

// noHelloHook stops the `HELLO <protocol>` go-redis v9 sends on every new
// connection before anything else: Sentinel never sends HELLO. It answers the
// HELLO with a Redis error, which go-redis takes as "server without HELLO"
// and carries on in RESP2; having no password in its options, it then sends
// no AUTH either.
type noHelloHook struct{}

// errNoHello is the reply noHelloHook gives to go-redis's HELLO.
type errNoHello struct{}

func (errNoHello) Error() string { return "ERR HELLO is not sent on Sentinel links" }

// RedisError marks errNoHello as a Redis error reply (redis.Error).
func (errNoHello) RedisError() {}

func (noHelloHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (noHelloHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// The connection-init HELLO is the only command of this type
		// (the links themselves send *redis.Cmd).
		if _, ok := cmd.(*redis.MapStringInterfaceCmd); ok && cmd.Name() == "hello" {
			cmd.SetErr(errNoHello{})
			return errNoHello{}
		}
		return next(ctx, cmd)
	}
}

func (noHelloHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// opaqueConn hides the syscall.Conn of a TCP connection from go-redis, which
// would otherwise peek at an idle connection before reusing it and, finding
// it closed by the peer, silently try to dial a replacement. Without the
// peek, the next command fails on the dead connection and the link reports
// LinkClosed.
type opaqueConn struct{ net.Conn }

// hostPort is addr in the host:port form net.Dial takes (IPv6 in brackets).
func hostPort(addr monitor.Addr) string {
	return net.JoinHostPort(addr.Host, strconv.Itoa(addr.Port))
}

// localAddr is the local end of a TCP connection as an Addr (IPv6 without
// brackets or zone).
func localAddr(c net.Conn) (monitor.Addr, bool) {
	t, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return monitor.Addr{}, false
	}
	return monitor.Addr{Host: t.IP.String(), Port: t.Port}, true
}
