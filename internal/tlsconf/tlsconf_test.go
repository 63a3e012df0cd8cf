package tlsconf

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/tlstest"
)

func TestServerAndClientHandshake(t *testing.T) {
	f, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Files{CertFile: f.Cert, KeyFile: f.Key, CACertFile: f.CA})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", m.Server())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("+OK\r\n"))
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), m.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 5)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "+OK\r\n" {
		t.Fatalf("%q %v", b, err)
	}
	if err := m.Reload(); err != nil {
		t.Fatalf("reload: %v", err)
	}
}

func TestClientCertificateRequired(t *testing.T) {
	f, _ := tlstest.Generate(t.TempDir())
	m, _ := New(Files{CertFile: f.Cert, KeyFile: f.Key, CACertFile: f.CA})
	ln, _ := tls.Listen("tcp", "127.0.0.1:0", m.Server())
	t.Cleanup(func() { ln.Close() })
	errc := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			errc <- err
			return
		}
		defer c.Close()
		errc <- c.(*tls.Conn).Handshake()
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		c.Read(make([]byte, 1))
		c.Close()
	}
	if err := <-errc; err == nil {
		t.Fatal("a client without certificate was accepted with tls-auth-clients yes")
	}
}

func TestUntrustedServerRefused(t *testing.T) {
	f, _ := tlstest.Generate(t.TempDir())
	other, _ := tlstest.Generate(t.TempDir())
	srv, _ := New(Files{CertFile: f.Cert, KeyFile: f.Key, CACertFile: f.CA, AuthClients: "no"})
	cli, _ := New(Files{CertFile: other.Cert, KeyFile: other.Key, CACertFile: other.CA})
	ln, _ := tls.Listen("tcp", "127.0.0.1:0", srv.Server())
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	if _, err := tls.Dial("tcp", ln.Addr().String(), cli.Client()); err == nil {
		t.Fatal("untrusted server accepted")
	}
}

func TestMissingFiles(t *testing.T) {
	if _, err := New(Files{}); !errors.Is(err, ErrNoCertificate) {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(Files{CertFile: "/nope", KeyFile: "/nope"}); err == nil {
		t.Fatal("missing files accepted")
	}
	var _ net.Conn
}
