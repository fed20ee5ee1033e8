package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// stream is a zkr process whose stdout is read line by line.
type stream struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	exited chan error
}

// startStream starts zkr with args against the shared server in ns.
func startStream(t *testing.T, ns string, args ...string) *stream {
	t.Helper()
	full := append([]string{"--zk", shared.ConnectString(), "--namespace", ns}, args...)
	s := &stream{t: t, cmd: exec.Command(zkrBin, full...), lines: make(chan string, 1000), exited: make(chan error, 1)}
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.exited <- s.cmd.Wait()
	}()
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	return s
}

// next returns the next line, failing the test when none comes.
func (s *stream) next() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		require.True(s.t, ok, "zkr ended")
		return l
	case <-time.After(30 * time.Second):
		s.t.Fatal("no line from zkr")
		return ""
	}
}

// interrupt sends SIGINT, checks that zkr printed nothing more and exits 0.
func (s *stream) interrupt() {
	s.t.Helper()
	require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGINT))
	for l := range s.lines {
		s.t.Errorf("unexpected line after the last change: %s", l)
	}
	select {
	case err := <-s.exited:
		require.NoError(s.t, err, "zkr exits 0 on Ctrl-C")
	case <-time.After(30 * time.Second):
		s.t.Fatal("zkr did not end on SIGINT")
	}
}

// nextEvent decodes the next line as an event.
func (s *stream) nextEvent() CacheEvent {
	s.t.Helper()
	l := s.next()
	var e CacheEvent
	require.NoError(s.t, json.Unmarshal([]byte(l), &e), l)
	return e
}

// requireEvent checks an event's type and path, and its data when want is
// not nil.
func requireEvent(t *testing.T, e CacheEvent, typ, path string, version int32, data *string) {
	t.Helper()
	require.Equal(t, typ, e.Type, "%+v", e)
	require.Equal(t, path, e.Path, "%+v", e)
	require.NotNil(t, e.Version, "%+v", e)
	require.Equal(t, version, *e.Version, "%+v", e)
	if data != nil {
		require.NotNil(t, e.Data, "%+v", e)
		require.Equal(t, *data, *e.Data)
	}
	require.False(t, e.Time.IsZero())
}

func ptr(s string) *string { return &s }

func TestWatchEventsJSON(t *testing.T) {
	ns := namespace(t)
	c := connect(t, ns)
	ctx := ctxT(t, time.Minute)
	_, err := c.Create(ctx, "/w/a", []byte("one"), 0, client.WithParents())
	require.NoError(t, err)

	s := startStream(t, ns, "watch", "--events", "--json", "--depth", "2", "/w")
	requireEvent(t, s.nextEvent(), "NODE_CREATED", "/w", 0, ptr(""))
	requireEvent(t, s.nextEvent(), "NODE_CREATED", "/w/a", 0, ptr("one"))
	l := s.next()
	require.Regexp(t, `^\{"time":"[^"]+","type":"INITIALIZED"\}$`, l)

	_, err = c.Create(ctx, "/w/b", []byte("two"), zk.FlagEphemeral)
	require.NoError(t, err)
	l = s.next()
	var raw map[string]any // the documented field names, spelled out
	require.NoError(t, json.Unmarshal([]byte(l), &raw), l)
	for _, f := range []string{"time", "type", "path", "version", "czxid", "mzxid", "session", "data", "data_bytes"} {
		require.Contains(t, raw, f, l)
	}
	var e CacheEvent
	require.NoError(t, json.Unmarshal([]byte(l), &e), l)
	requireEvent(t, e, "NODE_CREATED", "/w/b", 0, ptr("two"))
	require.Equal(t, sessionHex(c.Session().ID()), e.Session)
	require.Equal(t, 3, *e.DataBytes)
	require.Equal(t, e.Czxid, e.Mzxid)

	_, err = c.Set(ctx, "/w/a", []byte{0xff, 0}, 0)
	require.NoError(t, err)
	e = s.nextEvent()
	requireEvent(t, e, "NODE_CHANGED", "/w/a", 1, ptr("0xff00"))
	require.Less(t, e.Czxid, e.Mzxid)
	require.Empty(t, e.Session, "a persistent node has no owner")

	// Depth 2: /w/a/x is the deepest level kept, /w/a/x/y is left out.
	_, err = c.Create(ctx, "/w/a/x", nil, 0)
	require.NoError(t, err)
	requireEvent(t, s.nextEvent(), "NODE_CREATED", "/w/a/x", 0, ptr(""))
	_, err = c.Create(ctx, "/w/a/x/y", nil, 0)
	require.NoError(t, err)

	require.NoError(t, c.Delete(ctx, "/w/b", -1))
	requireEvent(t, s.nextEvent(), "NODE_DELETED", "/w/b", 0, ptr("two"))
	s.interrupt()

}

func TestWatchEventsText(t *testing.T) {
	ns := namespace(t)
	c := connect(t, ns)
	ctx := ctxT(t, time.Minute)

	// The path does not exist yet: the load is empty, its creation an event.
	s := startStream(t, ns, "watch", "--events", "--no-data", "/t")
	require.Regexp(t, `^\S+  INITIALIZED$`, s.next())
	_, err := c.Create(ctx, "/t", []byte("secret"), 0)
	require.NoError(t, err)
	l := s.next()
	require.Regexp(t, `^\S+Z  NODE_CREATED  /t  v0$`, l, "no data with --no-data")
	_, err = c.Set(ctx, "/t", []byte("other"), -1)
	require.NoError(t, err)
	require.Regexp(t, `^\S+Z  NODE_CHANGED  /t  v1$`, s.next())
	s.interrupt()
	require.False(t, strings.Contains(l, "secret"))

	requireOneLineError(t, zkr(t, ns, "watch", "--depth", "1", "/t"), 2)
	requireOneLineError(t, zkr(t, ns, "watch", "--no-data", "/t"), 2)
	requireOneLineError(t, zkr(t, ns, "watch", "--events", "--depth", "-2", "/t"), 2)
	requireOneLineError(t, zkr(t, ns, "watch", "--events", "t"), 2)
	requireOneLineError(t, zkrNoServer(t, "--zk", "127.0.0.1:1", "--timeout", "1s", "watch", "--events", "/t"), 3)
	r := zkr(t, ns, "watch", "--help")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "a data watch on every node")
}
