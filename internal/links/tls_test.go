package links

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/tlstest"
)

func TestLinksTLS(t *testing.T) {
	files, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	srv := startServer(t, "port 0", "tls-port {port}", "tls-cert-file "+files.Cert, "tls-key-file "+files.Key,
		"tls-ca-cert-file "+files.CA, "tls-auth-clients no")
	l, s := newTestLinks(t, Options{TLSConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr, ClientName: "tls-cmd"})
	if got := call(t, l, s, 1, 1, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Errorf("PING over TLS -> %+v", got)
	}
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr, ClientName: "tls-pubsub"})
	call(t, l, s, 1, 2, "PUBLISH", helloCh, "over tls")
	if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got.Payload != "over tls" {
		t.Errorf("message %+v", got)
	}

	// A server certificate that is not trusted fails the link.
	bad, bs := newTestLinks(t, Options{TLSConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}})
	bad.Apply(msg.OpenLink{ID: 1, Kind: msg.CmdLink, Addr: srv.addr})
	expect[msg.LinkClosed](t, bs.next(t, 1))

	// CloseLink on a TLS link returns at once and ends it.
	l.Apply(msg.CloseLink{ID: 2}) // first: it may ride link 1
	l.Apply(msg.CloseLink{ID: 1})
	l.Close()
	s.none(t, 1)
	s.none(t, 2)
}
