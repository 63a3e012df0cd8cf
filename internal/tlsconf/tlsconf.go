// Package tlsconf builds the TLS configurations of a Sentinel from its
// tls-* directives: the server side of tls-port and the client side of
// links when tls-replication is on. Certificates are loaded again by
// Reload (SIGHUP) without restarting; connections opened afterwards use
// the new files.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// ErrNoCertificate means tls-port or tls-replication is set without
// tls-cert-file and tls-key-file.
var ErrNoCertificate = errors.New("TLS needs tls-cert-file and tls-key-file")

// Files are the tls-* directives that name files, and the client
// authentication policy.
type Files struct {
	CertFile       string
	KeyFile        string
	ClientCertFile string // "" = use CertFile for outgoing links
	ClientKeyFile  string
	CACertFile     string
	CACertDir      string
	// AuthClients is tls-auth-clients: "yes" (default), "no", "optional".
	AuthClients string
}

// loaded is one consistent set of certificates.
type loaded struct {
	server *tls.Certificate
	client *tls.Certificate
	roots  *x509.CertPool
}

// Manager holds the current certificates and hands out configurations
// that always use them.
type Manager struct {
	files Files
	cur   atomic.Pointer[loaded]
}

// New loads the files once; an error names the file that failed.
func New(f Files) (*Manager, error) {
	m := &Manager{files: f}
	if err := m.Reload(); err != nil {
		return nil, err
	}
	return m, nil
}

// Reload reads every file again; on error the previous certificates stay.
func (m *Manager) Reload() error {
	f := m.files
	if f.CertFile == "" || f.KeyFile == "" {
		return ErrNoCertificate
	}
	srv, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return fmt.Errorf("load tls-cert-file %s / tls-key-file %s: %w", f.CertFile, f.KeyFile, err)
	}
	cli := srv
	if f.ClientCertFile != "" {
		cli, err = tls.LoadX509KeyPair(f.ClientCertFile, f.ClientKeyFile)
		if err != nil {
			return fmt.Errorf("load tls-client-cert-file %s: %w", f.ClientCertFile, err)
		}
	}
	var roots *x509.CertPool
	if f.CACertFile != "" || f.CACertDir != "" {
		roots = x509.NewCertPool()
		if f.CACertFile != "" {
			if err := addPEM(roots, f.CACertFile); err != nil {
				return err
			}
		}
		if f.CACertDir != "" {
			entries, err := os.ReadDir(f.CACertDir)
			if err != nil {
				return fmt.Errorf("read tls-ca-cert-dir: %w", err)
			}
			for _, e := range entries {
				if !e.IsDir() {
					_ = addPEM(roots, filepath.Join(f.CACertDir, e.Name()))
				}
			}
		}
	}
	m.cur.Store(&loaded{server: &srv, client: &cli, roots: roots})
	return nil
}

func addPEM(pool *x509.CertPool, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read tls-ca-cert-file: %w", err)
	}
	if !pool.AppendCertsFromPEM(b) {
		return fmt.Errorf("tls-ca-cert-file %s: no certificate found", path)
	}
	return nil
}

// Server returns the configuration of the tls-port listener: client
// certificates are required, verified if given, or ignored according to
// tls-auth-clients, against the CA as loaded at handshake time.
func (m *Manager) Server() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cur := m.cur.Load()
			c := &tls.Config{
				MinVersion:   tls.VersionTLS12,
				Certificates: []tls.Certificate{*cur.server},
				ClientCAs:    cur.roots,
			}
			switch strings.ToLower(m.files.AuthClients) {
			case "no":
				c.ClientAuth = tls.NoClientCert
			case "optional":
				c.ClientAuth = tls.VerifyClientCertIfGiven
			default:
				c.ClientAuth = tls.RequireAndVerifyClientCert
			}
			return c, nil
		},
	}
}

// Client returns the configuration of outgoing links: our client
// certificate, servers verified against the CA (Redis does not check the
// server name, so neither do we: the chain is verified by hand).
func (m *Manager) Client() *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // replaced by VerifyConnection below
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return m.cur.Load().client, nil
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			roots := m.cur.Load().roots
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		},
	}
}
