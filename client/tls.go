package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrTLS is wrapped by every *TLSError.
var ErrTLS = errors.New("zkrecipes: TLS failure")

// Causes a TLSError may carry besides a handshake's own error.
var (
	// errServerSpeaksTLS: a client without WithTLS reached a TLS port.
	errServerSpeaksTLS = errors.New("the server speaks TLS and the client was not given WithTLS")
	// errServerNotTLS: a WithTLS client reached a plain ZooKeeper port.
	errServerNotTLS = errors.New("the server is a plain ZooKeeper port, not a TLS one")
)

// TLSError reports that a connection to a server failed for TLS's sake:
// its handshake failed (the server's certificate is not trusted or does
// not name the address dialled, the server refused the client's
// certificate, or the server is not a TLS port at all), or a client
// without WithTLS reached a TLS port. It wraps ErrTLS and its cause.
//
// Start returns one at once when every server has failed so for a reason
// that will not pass by itself (see Start). Otherwise, and once a session
// was established, a failed handshake is a failed dial like any other:
// logged, and retried until a connection succeeds.
type TLSError struct {
	// Addr is the server address dialled ("host:port").
	Addr string
	// Err is the cause: the handshake's error (a
	// *tls.CertificateVerificationError, say), or a plain explanation.
	Err error
}

// Error names the server and the cause.
func (e *TLSError) Error() string {
	return fmt.Sprintf("zkrecipes: TLS with %s: %v", e.Addr, e.Err)
}

// Unwrap lets errors.Is(err, ErrTLS) match, and errors.As reach the cause.
func (e *TLSError) Unwrap() []error { return []error{ErrTLS, e.Err} }

// final reports whether e will not pass by itself: a certificate that
// does not verify, the server's alert refusing the client, a server that
// does not speak TLS (or does, to a client that does not). A timeout, a
// reset or an EOF in the middle of a handshake may pass.
func (e *TLSError) final() bool {
	var (
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		header  tls.RecordHeaderError
	)
	switch {
	case errors.Is(e.Err, errServerSpeaksTLS), errors.Is(e.Err, errServerNotTLS),
		errors.As(e.Err, &verify), errors.As(e.Err, &unknown), errors.As(e.Err, &host),
		errors.As(e.Err, &invalid), errors.As(e.Err, &header), isRemoteAlert(e.Err):
		return true
	}
	return false
}

// isRemoteAlert reports whether err is a TLS alert the server sent (crypto/tls
// reports one as a *net.OpError whose Op is "remote error").
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// minHandshake is the least time a TLS handshake is given, whatever the
// dial timeout (go-zookeeper dials with 1 s): a JVM server's first
// handshakes can be slow.
const minHandshake = 2 * time.Second

// tlsDialer wraps base: each connection it opens completes a TLS
// handshake with cfg before it is returned. cfg's ServerName, when empty,
// is the host of the address dialled, so the server's certificate must
// name it (an IP address as an IP SAN).
func tlsDialer(base Dialer, cfg *tls.Config) Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		raw, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		if raw == nil {
			return nil, fmt.Errorf("zkrecipes: dialer returned no connection to %s", address)
		}
		conf := cfg
		if conf.ServerName == "" {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				host = address
			}
			conf = cfg.Clone()
			conf.ServerName = host
		}
		ctx, cancel := context.WithTimeout(context.Background(), max(timeout, minHandshake))
		defer cancel()
		conn := tls.Client(raw, conf)
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, &TLSError{Addr: address, Err: err}
		}
		return conn, nil
	}
}
