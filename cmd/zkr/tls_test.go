package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestTLSFlags runs zkr against a server's secure port (a server of its
// own, started with zktest.WithTLS): with the cluster's CA and client
// certificate it shows a holder; with a CA that is not the server's, or
// without TLS, it fails at once with exit 3 and says why; bad flags are
// usage errors (exit 2).
func TestTLSFlags(t *testing.T) {
	cluster := zktest.ForTest(t, zktest.WithTLS())
	files := cluster.TLS()
	secure := cluster.SecureConnectString()
	ns := namespace(t)
	cfg, err := files.ClientConfig()
	require.NoError(t, err)
	c, err := client.New(client.WithServers(cluster.SecureAddrs()...), client.WithTLS(cfg), client.WithNamespace(ns))
	require.NoError(t, err)
	require.NoError(t, c.Start(ctxT(t, 30*time.Second)))
	t.Cleanup(func() { _ = c.Close() })
	holder, err := mutex.New(c, "/jobs/nightly", mutex.WithData([]byte("host-a")))
	require.NoError(t, err)
	require.NoError(t, holder.Lock(ctxT(t, 30*time.Second)))
	t.Cleanup(func() { _ = holder.Unlock(context.Background()) })

	flags := []string{"--tls-ca", files.CAFile, "--tls-cert", files.CertFile, "--tls-key", files.KeyFile}
	r := zkrAt(t, secure, "", ns, append(flags, "show", "/jobs/nightly")...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "host-a")
	require.Contains(t, r.stdout, "holder")

	other := filepath.Join(t.TempDir(), "other-ca.pem")
	require.NoError(t, os.WriteFile(other, selfSignedPEM(t), 0o600))
	r = zkrAt(t, secure, "", ns, "--timeout", "60s", "--tls-ca", other, "--tls-cert", files.CertFile, "--tls-key", files.KeyFile,
		"show", "/jobs/nightly")
	require.Equal(t, exitConnect, r.code, r.stderr)
	require.Contains(t, r.stderr, "certificate")
	require.NotContains(t, r.stderr, "within", "it failed at once, not at --timeout")

	r = zkrAt(t, secure, "", ns, "--timeout", "60s", "show", "/jobs/nightly")
	require.Equal(t, exitConnect, r.code, r.stderr)
	require.Contains(t, r.stderr, "speaks TLS")

	r = zkrAt(t, secure, "", ns, "--tls-cert", files.CertFile, "show", "/jobs/nightly")
	require.Equal(t, exitUsage, r.code, r.stderr)
	r = zkrAt(t, secure, "", ns, "--tls-ca", filepath.Join(t.TempDir(), "missing.pem"), "show", "/jobs/nightly")
	require.Equal(t, exitUsage, r.code, r.stderr)
	r = zkrAt(t, secure, "", ns, "--tls-ca", files.KeyFile, "show", "/jobs/nightly")
	require.Equal(t, exitUsage, r.code, r.stderr)
}

// selfSignedPEM is the PEM certificate of an authority no server uses.
func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "not the servers' CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
