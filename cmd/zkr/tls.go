package main

import (
	"crypto/tls"
	"crypto/x509"
	"os"

	"github.com/spf13/cobra"
)

// tlsFlags are the flags of a TLS connection to the secure client port.
type tlsFlags struct {
	ca, cert, key, serverName string
}

// add adds the flags to root's persistent ones.
func (f *tlsFlags) add(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&f.ca, "tls-ca", "", "connect with TLS, trusting the CA certificates in this PEM file (default: the system's)")
	pf.StringVar(&f.cert, "tls-cert", "", "connect with TLS, presenting this client certificate (PEM; with --tls-key)")
	pf.StringVar(&f.key, "tls-key", "", "the private key of --tls-cert (PEM)")
	pf.StringVar(&f.serverName, "tls-server-name", "", "connect with TLS, expecting the servers' certificate to name this host (default: each --zk host)")
}

// config returns the TLS configuration the flags ask for, nil when none is
// set (a plain connection), or a usage error.
func (f *tlsFlags) config() (*tls.Config, error) {
	if f.ca == "" && f.cert == "" && f.key == "" && f.serverName == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.serverName}
	if f.ca != "" {
		pemBytes, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, usageErr("--tls-ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemBytes) {
			return nil, usageErr("--tls-ca %s: no PEM certificate in it", f.ca)
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.cert != "" && f.key != "":
		pair, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, usageErr("--tls-cert/--tls-key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case f.cert != "" || f.key != "":
		return nil, usageErr("--tls-cert and --tls-key go together")
	}
	return cfg, nil
}
