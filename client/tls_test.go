package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// These tests need no ZooKeeper: the servers are Go listeners that speak
// TLS, or plain ZooKeeper's four-letter words, or nothing. The real
// server's secure port is tested in integration/securityit.

// noLeaks checks, after the test's other cleanups (its listeners), that
// it left no goroutine behind.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// selfSigned is a certificate for 127.0.0.1 that signs itself.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// serve accepts connections on a loopback listener until the test ends,
// handing each to handle on a goroutine of its own.
func serve(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				handle(conn)
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

// tlsServer speaks TLS with cert, reads what comes and closes.
func tlsServer(t *testing.T, cert tls.Certificate) string {
	return serve(t, func(c net.Conn) {
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
		_, _ = io.Copy(io.Discard, tc)
	})
}

// plainServer answers "srvr" as ZooKeeper does and closes anything else.
func plainServer(t *testing.T) string {
	return serve(t, func(c net.Conn) {
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err == nil && string(buf) == "srvr" {
			_, _ = io.WriteString(c, "Zookeeper version: 3.8.0\nMode: standalone\n")
		}
	})
}

// startFails starts a client that cannot get a session and returns
// Start's error, requiring that it came before ctx ended.
func startFails(t *testing.T, opts ...Option) error {
	t.Helper()
	c, err := New(opts...)
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.Start(ctx)
	require.Error(t, err)
	require.NoError(t, ctx.Err(), "Start waited for its ctx: %v", err)
	require.ErrorIs(t, err, ErrTLS)
	var te *TLSError
	require.ErrorAs(t, err, &te)
	return err
}

func TestStartFailsFastOnUntrustedCertificate(t *testing.T) {
	noLeaks(t)
	addr := tlsServer(t, selfSigned(t))
	err := startFails(t, WithServers(addr), WithTLS(&tls.Config{}))
	var verify *tls.CertificateVerificationError
	assert.ErrorAs(t, err, &verify)
}

func TestStartFailsFastOnWrongServerName(t *testing.T) {
	noLeaks(t)
	cert := selfSigned(t)
	roots := x509.NewCertPool()
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	require.NoError(t, err)
	roots.AddCert(leaf)
	addr := tlsServer(t, cert)
	err = startFails(t, WithServers(addr), WithTLS(&tls.Config{RootCAs: roots, ServerName: "zk.example"}))
	var verify *tls.CertificateVerificationError
	assert.ErrorAs(t, err, &verify)
}

func TestStartFailsFastWithoutTLSOnATLSPort(t *testing.T) {
	noLeaks(t)
	addr := tlsServer(t, selfSigned(t))
	err := startFails(t, WithServers(addr))
	assert.ErrorIs(t, err, errServerSpeaksTLS)
}

func TestStartFailsFastWithTLSOnAPlainPort(t *testing.T) {
	noLeaks(t)
	addr := plainServer(t)
	err := startFails(t, WithServers(addr), WithTLS(&tls.Config{}))
	assert.ErrorIs(t, err, errServerNotTLS)
}

// TestStartWaitsWhenOneServerIsFine: a certificate failure of one server
// does not fail Start while another may still answer; when ctx ends, its
// error carries the TLS failure.
func TestStartWaitsWhenOneServerIsFine(t *testing.T) {
	noLeaks(t)
	bad := tlsServer(t, selfSigned(t))
	silent := serve(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) // a TLS port that never answers
	c, err := New(WithServers(bad, silent), WithTLS(&tls.Config{}))
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = c.Start(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, ErrTLS)
}

func TestTLSErrorFinal(t *testing.T) {
	final := []error{
		&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}},
		x509.HostnameError{Host: "x"},
		tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"},
		&net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")},
		errServerSpeaksTLS, errServerNotTLS,
	}
	for _, err := range final {
		assert.True(t, (&TLSError{Addr: "a:1", Err: err}).final(), "%v", err)
	}
	passing := []error{io.EOF, context.DeadlineExceeded, &net.OpError{Op: "read", Err: errors.New("reset")}}
	for _, err := range passing {
		assert.False(t, (&TLSError{Addr: "a:1", Err: err}).final(), "%v", err)
	}
	e := &TLSError{Addr: "a:1", Err: io.EOF}
	assert.ErrorIs(t, e, ErrTLS)
	assert.ErrorIs(t, e, io.EOF)
	assert.Contains(t, e.Error(), "a:1")
	assert.NotPanics(t, func() { _ = (&TLSError{}).Error() })
}
