package client

import (
	"context"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

// transport is one ZooKeeper session kept across connections: the client's
// own wire layer (internal/wire) or, while the switch to it lasts,
// go-zookeeper's Conn behind gozkConn. Paths are absolute; nothing is
// retried. A call made inside await runs with a context that never ends, so
// that it waits for its reply or the connection's loss, as go-zookeeper's
// requests did: the code around it judges an abandoned attempt by what it
// did, which a request cut short by its ctx would not tell.
type transport interface {
	Get(ctx context.Context, path string) ([]byte, *zk.Stat, error)
	GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error)
	Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error)
	Exists(ctx context.Context, path string) (bool, *zk.Stat, error)
	ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error)
	Children(ctx context.Context, path string) ([]string, *zk.Stat, error)
	ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Delete(ctx context.Context, path string, version int32) error
	Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error)
	Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error)
	Sync(ctx context.Context, path string) (string, error)
	GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error)
	AddAuth(ctx context.Context, scheme string, auth []byte) error
	AddWatch(ctx context.Context, path string, mode int32) error
	RemovePersistentWatch(ctx context.Context, path string) error
	SessionID() int64
	Server() string
	Close()
}

// bg is the context of requests that must run to their reply (see transport).
var bg = context.Background()

// useGozk reports whether the client runs on go-zookeeper's connection
// instead of its own: ZKRECIPES_TRANSPORT=gozk, while the switch lasts.
func useGozk() bool { return os.Getenv("ZKRECIPES_TRANSPORT") == "gozk" }

// gozkConn is go-zookeeper's Conn as a transport: its calls ignore ctx.
type gozkConn struct {
	*zk.Conn
}

func (g gozkConn) Get(_ context.Context, path string) ([]byte, *zk.Stat, error) {
	return g.Conn.Get(path)
}

func (g gozkConn) GetW(_ context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	return g.Conn.GetW(path)
}

func (g gozkConn) Set(_ context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	return g.Conn.Set(path, data, version)
}

func (g gozkConn) Exists(_ context.Context, path string) (bool, *zk.Stat, error) {
	return g.Conn.Exists(path)
}

func (g gozkConn) ExistsW(_ context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	return g.Conn.ExistsW(path)
}

func (g gozkConn) Children(_ context.Context, path string) ([]string, *zk.Stat, error) {
	return g.Conn.Children(path)
}

func (g gozkConn) ChildrenW(_ context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	return g.Conn.ChildrenW(path)
}

func (g gozkConn) Delete(_ context.Context, path string, version int32) error {
	return g.Conn.Delete(path, version)
}

func (g gozkConn) Create(_ context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	return g.Conn.Create(path, data, flags, acl)
}

func (g gozkConn) CreateContainer(_ context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	return g.Conn.CreateContainer(path, data, flags, acl)
}

func (g gozkConn) CreateTTL(_ context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	return g.Conn.CreateTTL(path, data, flags, acl, ttl)
}

func (g gozkConn) Multi(_ context.Context, ops ...any) ([]zk.MultiResponse, error) {
	return g.Conn.Multi(ops...)
}

func (g gozkConn) Sync(_ context.Context, path string) (string, error) {
	return g.Conn.Sync(path)
}

func (g gozkConn) GetACL(_ context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	return g.Conn.GetACL(path)
}

func (g gozkConn) AddWatch(context.Context, string, int32) error { return errGozkUnsupported }

func (g gozkConn) RemovePersistentWatch(context.Context, string) error { return errGozkUnsupported }

// errGozkUnsupported answers what go-zookeeper cannot do.
var errGozkUnsupported = wire.ErrUnimplemented

func (g gozkConn) AddAuth(_ context.Context, scheme string, auth []byte) error {
	return g.Conn.AddAuth(scheme, auth)
}
