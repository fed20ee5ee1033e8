package securityit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// clientTLS is a TLS config that trusts the shared cluster's authority and
// presents its client certificate.
func clientTLS(t testing.TB) *tls.Config {
	t.Helper()
	cfg, err := server.TLS().ClientConfig()
	require.NoError(t, err)
	return cfg
}

// connectTLS starts a client on the shared cluster's secure port.
func connectTLS(t testing.TB, ns string, extra ...client.Option) *client.Client {
	t.Helper()
	return connectTo(t, server.SecureAddrs(), ns, append([]client.Option{client.WithTLS(clientTLS(t))}, extra...)...)
}

// connectTo starts a client on addrs (itest.Connect: 30 s to connect,
// closed at cleanup).
func connectTo(t testing.TB, addrs []string, ns string, extra ...client.Option) *client.Client {
	t.Helper()
	return itest.Connect(t, server, itest.Opts{NS: ns, Extra: append([]client.Option{client.WithServers(addrs...)}, extra...)})
}

// startErr starts a client that must not get a session, with a ctx far
// longer than any failure should take, and returns Start's error and
// whether the ctx was still running when Start returned.
func startErr(t testing.TB, opts ...client.Option) (err error, ctxLive bool) {
	t.Helper()
	c, err := client.New(append([]client.Option{client.WithSessionTimeout(4 * time.Second)}, opts...)...)
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.Start(ctx)
	return err, ctx.Err() == nil
}

// requireTLSRefusal requires that Start failed with a *client.TLSError
// before its ctx ended.
func requireTLSRefusal(t testing.TB, err error, ctxLive bool) *client.TLSError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, client.ErrTLS)
	var te *client.TLSError
	require.ErrorAs(t, err, &te)
	require.NotErrorIs(t, err, context.DeadlineExceeded, "Start waited for its ctx: %v", err)
	require.True(t, ctxLive, "Start returned only when its ctx ended: %v", err)
	return te
}

// otherCA is a certificate pool with an authority the servers do not use.
func otherCA(t testing.TB) *x509.CertPool {
	t.Helper()
	cert, err := zktest.SelfSignedCA("some other CA")
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// ctxT is a context that ends after d or at the test's end.
func ctxT(t testing.TB, d time.Duration) context.Context { return itest.Ctx(t, d) }
