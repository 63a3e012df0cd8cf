package links

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// selfSignedCert writes a self-signed certificate for 127.0.0.1 and its key
// to dir and returns their paths and a pool trusting the certificate.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "go-sentinel test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	return certFile, keyFile, roots
}

func TestLinksTLS(t *testing.T) {
	certFile, keyFile, roots := selfSignedCert(t, t.TempDir())
	srv := startServer(t, "port 0", "tls-port {port}", "tls-cert-file "+certFile, "tls-key-file "+keyFile,
		"tls-ca-cert-file "+certFile, "tls-auth-clients no")
	l, s := newTestLinks(t, Options{TLSConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}})
	openCmd(t, l, s, monitor.OpenLink{ID: 1, Addr: srv.addr, ClientName: "tls-cmd"})
	if got := call(t, l, s, 1, 1, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Errorf("PING over TLS -> %+v", got)
	}
	openPubSub(t, l, s, monitor.OpenLink{ID: 2, Addr: srv.addr, ClientName: "tls-pubsub"})
	call(t, l, s, 1, 2, "PUBLISH", helloCh, "over tls")
	if got := expect[monitor.PubSubMessage](t, s.next(t, 2)); got.Payload != "over tls" {
		t.Errorf("message %+v", got)
	}

	// A server certificate that is not trusted fails the link.
	bad, bs := newTestLinks(t, Options{TLSConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}})
	bad.Apply(monitor.OpenLink{ID: 1, Kind: monitor.CmdLink, Addr: srv.addr})
	expect[monitor.LinkClosed](t, bs.next(t, 1))

	// CloseLink on a TLS link returns at once and ends it.
	l.Apply(monitor.CloseLink{ID: 1})
	l.Apply(monitor.CloseLink{ID: 2})
	l.Close()
	s.none(t, 1)
	s.none(t, 2)
}
