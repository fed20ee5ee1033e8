package zktest

import (
	"os"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestTLSCluster starts a WithTLS server on each selected backend and
// connects over TLS with the zkrecipes client (before and after a restart,
// on the same secure address); Close removes the keys.
func TestTLSCluster(t *testing.T) {
	for _, b := range selectedBackends(t) {
		t.Run(string(b), func(t *testing.T) {
			c, err := Start(testCtx(t, 3*time.Minute), WithBackend(b), WithTLS(), WithLogger(discardLogger()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() }) // idempotent: the test closes it too
			files := c.TLS()
			if files == nil || len(c.SecureAddrs()) != 1 || c.SecureAddr(0) == "" || c.SecureAddr(0) == c.Addr(0) {
				t.Fatalf("TLS %+v, secure addrs %v", files, c.SecureAddrs())
			}
			cfg, err := files.ClientConfig()
			if err != nil {
				t.Fatal(err)
			}
			create := func(p string) {
				t.Helper()
				conf := cfg.Clone()
				conf.ServerName = "127.0.0.1"
				cl, err := client.New(client.WithServers(c.SecureAddr(0)), client.WithSessionTimeout(10*time.Second),
					client.WithTLS(conf), client.WithLogger(discardLogger()))
				if err != nil {
					t.Fatal(err)
				}
				defer cl.Close()
				ctx := testCtx(t, time.Minute)
				if err := cl.Start(ctx); err != nil {
					t.Fatalf("session over TLS: %v", err)
				}
				if _, err := cl.Create(ctx, p, nil, 0); err != nil {
					t.Fatalf("create %s over TLS: %v", p, err)
				}
			}
			create("/over-tls")
			addr := c.SecureAddr(0)
			if err := c.StopServer(testCtx(t, time.Minute), 0); err != nil {
				t.Fatal(err)
			}
			if err := c.StartServer(testCtx(t, 2*time.Minute), 0); err != nil {
				t.Fatal(err)
			}
			if c.SecureAddr(0) != addr {
				t.Fatalf("secure address changed across a restart: %s, then %s", addr, c.SecureAddr(0))
			}
			create("/after-restart")
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(files.Dir); !os.IsNotExist(err) {
				t.Fatalf("Close left %s: %v", files.Dir, err)
			}
		})
	}
}

// TestNoTLS: a cluster without WithTLS, and a zero one, have no secure
// port and no TLS files.
func TestNoTLS(t *testing.T) {
	for _, c := range []*Cluster{nil, {addrs: []string{"127.0.0.1:1"}}} {
		if c.TLS() != nil || c.SecureAddr(0) != "" || c.SecureAddrs() != nil || c.SecureConnectString() != "" {
			t.Fatalf("cluster %v has TLS", c)
		}
	}
	var f *TLSFiles
	if _, err := f.ClientConfig(); err == nil {
		t.Fatal("ClientConfig of no files: no error")
	}
}
