package integration

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// clDataOps are the opcodes of every request a path operation may send.
var clDataOps = []int32{
	faultlink.OpCreate, faultlink.OpCreate2, faultlink.OpCreateContainer, faultlink.OpCreateTTL,
	faultlink.OpDelete, faultlink.OpExists, faultlink.OpGetData, faultlink.OpSetData,
	faultlink.OpGetChildren, faultlink.OpGetChildren2, faultlink.OpMulti, faultlink.OpCheck,
}

func clDataRequests(l *faultlink.Link) int64 {
	var n int64
	for _, op := range clDataOps {
		n += l.Requests(op)
	}
	return n
}

// TestClientRejectsBadInput: every operation of a started client refuses
// every malformed path with a *PathError wrapping ErrInvalidPath, before
// sending anything to the server.
func TestClientRejectsBadInput(t *testing.T) {
	t.Parallel()
	link := newLink(t)
	plain := connect(t, clientOpts{ns: namespace(t), link: link})
	noNS := connect(t, clientOpts{link: link})
	ctx := ctxT(t, 30*time.Second)

	badPaths := map[string]string{
		"empty":               "",
		"relative":            "node",
		"relative nested":     "a/b",
		"trailing slash":      "/a/",
		"double slash":        "/a//b",
		"only slashes":        "//",
		"dot":                 "/.",
		"dot segment":         "/a/./b",
		"dotdot":              "/..",
		"dotdot segment":      "/a/../b",
		"NUL":                 "/a\x00b",
		"control char":        "/a\x01b",
		"tab":                 "/a\tb",
		"DEL":                 "/a\x7fb",
		"C1 control":          "/a\u0085b",
		"invalid UTF-8":       "/a\xffb",
		"private use":         "/a\ue000b",
		"specials block":      "/a\ufff0b",
		"reserved tree":       "/zookeeper",
		"under reserved tree": "/zookeeper/quota",
	}
	ops := map[string]func(c *client.Client, p string) error{
		"Get": func(c *client.Client, p string) error { _, _, err := c.Get(ctx, p); return err },
		"GetW": func(c *client.Client, p string) error {
			_, _, _, err := c.GetW(ctx, p)
			return err
		},
		"Create": func(c *client.Client, p string) error { _, err := c.Create(ctx, p, nil, 0); return err },
		"CreateWithParents": func(c *client.Client, p string) error {
			_, err := c.Create(ctx, p, nil, 0, client.WithParents())
			return err
		},
		"CreateProtected": func(c *client.Client, p string) error {
			_, err := c.CreateProtected(ctx, p, nil, zk.FlagEphemeralSequential)
			return err
		},
		"Delete":         func(c *client.Client, p string) error { return c.Delete(ctx, p, -1) },
		"DeleteIfExists": func(c *client.Client, p string) error { return c.DeleteIfExists(ctx, p) },
		"Children": func(c *client.Client, p string) error {
			_, _, err := c.Children(ctx, p)
			return err
		},
		"ChildrenW": func(c *client.Client, p string) error {
			_, _, _, err := c.ChildrenW(ctx, p)
			return err
		},
		"Set": func(c *client.Client, p string) error { _, err := c.Set(ctx, p, []byte("x"), -1); return err },
		"Exists": func(c *client.Client, p string) error {
			_, _, err := c.Exists(ctx, p)
			return err
		},
		"ExistsW": func(c *client.Client, p string) error {
			_, _, _, err := c.ExistsW(ctx, p)
			return err
		},
	}

	before := clDataRequests(link)
	for cname, c := range map[string]*client.Client{"namespaced": plain, "no namespace": noNS} {
		for opName, op := range ops {
			for what, p := range badPaths {
				err := op(c, p)
				if !assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "%s %s(%q) (%s)", cname, opName, p, what) {
					continue
				}
				var pe *client.PathError
				if assert.True(t, errors.As(err, &pe), "%s %s: not a *PathError: %T", cname, opName, err) {
					assert.Equal(t, p, pe.Path)
					assert.NotEmpty(t, pe.Reason)
				}
			}
		}
	}
	assert.Equal(t, before, clDataRequests(link), "a bad path reached the server")

	// Other bad arguments.
	_, err := plain.CreateProtected(ctx, "/", nil, zk.FlagEphemeral)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "a protected node needs a name")
	assert.ErrorIs(t, plain.Do(ctx, nil), zkrecipes.ErrInvalidArgument)
	var nilClient *client.Client
	_, _, err = nilClient.Get(ctx, "/a")
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	assert.Equal(t, before, clDataRequests(link))

	// The client is unharmed and valid paths work.
	_, err = plain.Create(ctx, "/ok/fine", []byte("y"), 0, client.WithParents())
	require.NoError(t, err)
	data, _, err := plain.Get(ctx, "/ok/fine")
	require.NoError(t, err)
	assert.Equal(t, "y", string(data))
	assert.Greater(t, clDataRequests(link), before)
}
