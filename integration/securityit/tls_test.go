package securityit

import (
	"crypto/tls"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestTLSMutexRoundTrip: two clients on the secure port exclude each
// other with a mutex, and hand it over.
func TestTLSMutexRoundTrip(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a, b := connectTLS(t, ns), connectTLS(t, ns)
	ctx := ctxT(t, time.Minute)
	ma, err := mutex.New(a, "/jobs/nightly")
	require.NoError(t, err)
	mb, err := mutex.New(b, "/jobs/nightly")
	require.NoError(t, err)
	require.NoError(t, ma.Lock(ctx))
	var le *zkrecipes.LockedError
	require.True(t, errors.As(mb.TryLock(ctx), &le))
	require.NoError(t, ma.Unlock(ctx))
	require.NoError(t, mb.Lock(ctx))
	require.NoError(t, mb.Unlock(ctx))
}

// TestTLSWrongCAFailsFast: a client that does not trust the server's
// authority gets a *TLSError from Start at once, not its ctx's end.
func TestTLSWrongCAFailsFast(t *testing.T) {
	itest.NoLeaks(t)
	cfg := clientTLS(t)
	cfg.RootCAs = otherCA(t)
	err, live := startErr(t, client.WithServers(server.SecureAddrs()...), client.WithTLS(cfg))
	requireTLSRefusal(t, err, live)
}

// TestPlainClientOnTLSPortFailsFast: a client without WithTLS on the
// secure port: the server drops its connect request without a word, and
// the client's probe finds that the port speaks TLS.
func TestPlainClientOnTLSPortFailsFast(t *testing.T) {
	itest.NoLeaks(t)
	err, live := startErr(t, client.WithServers(server.SecureAddrs()...))
	requireTLSRefusal(t, err, live)
}

// TestTLSClientOnPlainPortFailsFast: a WithTLS client on the plain port:
// the handshake ends in an EOF, and the probe finds plain ZooKeeper.
func TestTLSClientOnPlainPortFailsFast(t *testing.T) {
	itest.NoLeaks(t)
	err, live := startErr(t, client.WithServers(server.Addrs()...), client.WithTLS(clientTLS(t)))
	requireTLSRefusal(t, err, live)
}

// TestTLSWithoutClientCertFailsFast: the server requires a client
// certificate; a client without one gets the server's alert, typed, at
// once.
func TestTLSWithoutClientCertFailsFast(t *testing.T) {
	itest.NoLeaks(t)
	cfg := clientTLS(t)
	cfg.Certificates = nil
	err, live := startErr(t, client.WithServers(server.SecureAddrs()...), client.WithTLS(cfg))
	requireTLSRefusal(t, err, live)
}

// TestTLSWrongServerNameFailsFast: the servers' certificate does not name
// the ServerName asked for.
func TestTLSWrongServerNameFailsFast(t *testing.T) {
	itest.NoLeaks(t)
	cfg := clientTLS(t)
	cfg.ServerName = "zk.example.org"
	err, live := startErr(t, client.WithServers(server.SecureAddrs()...), client.WithTLS(cfg))
	requireTLSRefusal(t, err, live)
	var verify *tls.CertificateVerificationError
	require.ErrorAs(t, err, &verify)
}

// TestTLSElectionRoundTrip: leadership passes from one TLS client to the
// other, and an observer on the plain port sees both leaders.
func TestTLSElectionRoundTrip(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a, b := connectTLS(t, ns), connectTLS(t, ns)
	plain := connectTo(t, server.Addrs(), ns)
	ctx := ctxT(t, time.Minute)
	la, err := election.NewLatch(a, "/leader", election.WithID("a"))
	require.NoError(t, err)
	lb, err := election.NewLatch(b, "/leader", election.WithID("b"))
	require.NoError(t, err)
	require.NoError(t, la.Start(ctx))
	ta, err := la.Await(ctx)
	require.NoError(t, err)
	require.NoError(t, lb.Start(ctx))
	p, err := election.Leader(ctx, plain, "/leader")
	require.NoError(t, err)
	require.Equal(t, "a", p.ID)
	require.NoError(t, la.Close(ctx))
	tb, err := lb.Await(ctx)
	require.NoError(t, err)
	require.Greater(t, tb.Token(), ta.Token())
	itest.Eventually(t, 10*time.Second, "the observer sees b lead", func() bool {
		p, err := election.Leader(ctx, plain, "/leader")
		return err == nil && p.ID == "b"
	})
	require.NoError(t, lb.Close(ctx))
}

// TestTLSIdentityIsTheCertificate: on the secure port the server
// authenticates the client by its certificate (ZooKeeper's x509 scheme):
// a node only that certificate may read is read by the TLS client and
// refused, typed, to a plain one.
func TestTLSIdentityIsTheCertificate(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := connectTLS(t, ns)
	plain := connectTo(t, server.Addrs(), ns)
	ctx := ctxT(t, time.Minute)
	_, err := c.Create(ctx, "/dir", nil, zk.FlagPersistent)
	require.NoError(t, err)
	onlyCert := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=zktest client"}}
	_, err = c.Multi(ctx, &zk.CreateRequest{Path: "/dir/cert-only", Data: []byte("s"), Acl: onlyCert})
	require.NoError(t, err)
	data, _, err := c.Get(ctx, "/dir/cert-only")
	require.NoError(t, err)
	require.Equal(t, "s", string(data))
	_, _, err = plain.Get(ctx, "/dir/cert-only")
	requireACLRefusal(t, err, "get")
	require.NoError(t, c.Delete(ctx, "/dir/cert-only", -1))
}

// TestTLSOverAFaultLink: WithTLS composes with WithDialer (TLS over the
// link): a cut is a Suspended, and the client reconnects, with a new
// handshake, to the same session.
func TestTLSOverAFaultLink(t *testing.T) {
	itest.NoLeaks(t)
	link := itest.NewLink(t)
	c := connectTo(t, server.SecureAddrs(), itest.Namespace(t), client.WithDialer(link.Dial), client.WithTLS(clientTLS(t)))
	ctx := ctxT(t, time.Minute)
	sess, err := c.WaitSession(ctx)
	require.NoError(t, err)
	states, cancel := c.Subscribe()
	defer cancel()
	dials := link.Dials()
	link.Cut()
	itest.WaitState(t, states, client.StateSuspended, 0, 30*time.Second)
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, 0, 30*time.Second)
	require.Greater(t, link.Dials(), dials)
	again, err := c.WaitSession(ctx)
	require.NoError(t, err)
	require.Equal(t, sess.ID(), again.ID(), "the same session")
	_, err = c.Create(ctx, "/after-cut", nil, zk.FlagEphemeral)
	require.NoError(t, err)
}
