package tlsconf

import "github.com/go-sentinel/go-sentinel/internal/config"

// FilesOf returns the tls-* file directives of a parsed configuration.
func FilesOf(s config.Server) Files {
	return Files{
		CertFile:       s.TLSCertFile,
		KeyFile:        s.TLSKeyFile,
		ClientCertFile: s.TLSClientCertFile,
		ClientKeyFile:  s.TLSClientKeyFile,
		CACertFile:     s.TLSCACertFile,
		CACertDir:      s.TLSCACertDir,
		AuthClients:    s.TLSAuthClients,
	}
}
