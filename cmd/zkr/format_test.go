package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	uuidA = "_c_0f8c1e0e-3f5c-4a4e-9d0b-7a1d2c3b4a59-"
	uuidB = "_c_1a2b3c4d-0000-4000-8000-000000000001-"
	uuidC = "_c_9f9f9f9f-1111-4111-8111-000000000002-"
)

var now = time.UnixMilli(1_700_000_100_000)

func raw(name, data string, czxid int64, ageMs int64) rawNode {
	return rawNode{Name: name, Data: []byte(data), Czxid: czxid, Ctime: now.UnixMilli() - ageMs, EphemeralOwner: 0x10000cd05c90001}
}

func TestBuildQueueMutexOrdersBySequenceAndChainsWatches(t *testing.T) {
	nodes, foreign := buildQueue(kindMutex, []rawNode{
		raw(uuidC+"lock-0000000012", "host-c", 30, 1000),
		raw("stray", "", 5, 0),
		raw(uuidA+"lock-0000000010", "host-a", 10, 42_000),
		raw(uuidB+"lock-0000000011", "host-b", 20, 2000),
	}, now)
	require.Equal(t, []string{"stray"}, foreign)
	require.Len(t, nodes, 3)
	require.Equal(t, NodeView{Name: uuidA + "lock-0000000010", Role: roleHolder, Session: "0x10000cd05c90001",
		Created: time.UnixMilli(now.UnixMilli() - 42_000).UTC(), AgeSeconds: 42, Data: "host-a", Token: 10}, nodes[0])
	require.Equal(t, roleWaiter, nodes[1].Role)
	require.Equal(t, nodes[0].Name, nodes[1].Watches)
	require.Equal(t, roleWaiter, nodes[2].Role)
	require.Equal(t, nodes[1].Name, nodes[2].Watches)
}

func TestBuildQueueRWLock(t *testing.T) {
	// A downgraded reader (at its writer's sequence), a waiting writer, a
	// waiting reader behind it, a second writer, and a reader behind both.
	nodes, _ := buildQueue(kindRWLock, []rawNode{
		raw(uuidA+"__READ__0000000001", "a", 11, 0),
		raw(uuidB+"__WRIT__0000000002", "b", 12, 0),
		raw(uuidC+"__READ__0000000003", "c", 13, 0),
		raw(uuidA+"__WRIT__0000000004", "d", 14, 0),
		raw(uuidB+"__READ__0000000005", "e", 15, 0),
	}, now)
	got := []string{}
	for _, n := range nodes {
		got = append(got, n.Role+"/"+n.Mode+"/"+n.Data+"->"+n.Watches)
	}
	require.Equal(t, []string{
		"reader/read/a->",
		"waiter/write/b->" + uuidA + "__READ__0000000001",
		"waiter/read/c->" + uuidB + "__WRIT__0000000002",
		"waiter/write/d->" + uuidC + "__READ__0000000003",
		"waiter/read/e->" + uuidA + "__WRIT__0000000004",
	}, got)

	// Readers first share the lock; a writer first holds it alone.
	nodes, _ = buildQueue(kindRWLock, []rawNode{
		raw(uuidA+"__READ__0000000001", "a", 11, 0),
		raw(uuidB+"__READ__0000000002", "b", 12, 0),
	}, now)
	require.Equal(t, roleReader, nodes[0].Role)
	require.Equal(t, roleReader, nodes[1].Role)
	nodes, _ = buildQueue(kindRWLock, []rawNode{
		raw(uuidA+"__WRIT__0000000001", "a", 11, 0),
		raw(uuidB+"__READ__0000000002", "b", 12, 0),
	}, now)
	require.Equal(t, roleWriter, nodes[0].Role)
	require.Equal(t, roleWaiter, nodes[1].Role)

	// During a downgrade the writer and its read node share a sequence: the
	// read node holds, as the writer does.
	for _, pair := range [][2]string{{uuidA, uuidB}, {uuidB, uuidA}} {
		nodes, _ = buildQueue(kindRWLock, []rawNode{
			raw(pair[0]+"__WRIT__0000000001", "a", 11, 0),
			raw(pair[1]+"__READ__0000000001", "a", 12, 0),
			raw(uuidC+"__READ__0000000002", "c", 13, 0),
		}, now)
		for _, n := range nodes[:2] {
			require.NotEqual(t, roleWaiter, n.Role, n.Name)
		}
		require.Equal(t, roleWaiter, nodes[2].Role)
	}
}

func TestBuildQueueLatchAndSemaphore(t *testing.T) {
	nodes, _ := buildQueue(kindLatch, []rawNode{
		raw(uuidB+"latch-0000000001", "beta", 2, 0),
		raw(uuidA+"latch-0000000000", "alpha", 1, 0),
	}, now)
	require.Equal(t, []string{roleLeader, roleParticipant}, []string{nodes[0].Role, nodes[1].Role})
	require.Equal(t, "alpha", nodes[0].Data)
	require.Equal(t, nodes[0].Name, nodes[1].Watches)

	nodes, _ = buildQueue(kindSemaphore, []rawNode{
		raw(uuidA+"lease-0000000000", "a", 1, 0),
		raw(uuidB+"lease-0000000001", "b", 2, 0),
		raw(uuidC+"lease-0000000002", "c", 3, 0),
	}, now)
	markSemaphoreWaiters(nodes, nil)
	require.Equal(t, roleLease, nodes[2].Role, "no limit known: every lease node is a lease")
	two := 2
	markSemaphoreWaiters(nodes, &two)
	require.Equal(t, []string{roleLease, roleLease, roleWaiter}, []string{nodes[0].Role, nodes[1].Role, nodes[2].Role})
	require.Empty(t, nodes[2].Watches)
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		kids    []string
		dataLen int
		want    string
	}{
		{[]string{uuidA + "lock-0000000001"}, 9, kindMutex},
		{[]string{uuidA + "__WRIT__0000000001", uuidB + "__READ__0000000002"}, 0, kindRWLock},
		{[]string{uuidA + "__READ__0000000002"}, 0, kindRWLock},
		{[]string{uuidA + "latch-0000000001"}, 0, kindLatch},
		{[]string{"locks", "leases"}, 1, kindSemaphore},
		{[]string{"leases"}, 0, kindSemaphore},
		{[]string{"locks"}, 0, kindNone},
		{nil, 4, kindCount},
		{nil, 0, kindNone},
		{[]string{"config", "users"}, 0, kindNone},
	} {
		require.Equal(t, c.want, classify(c.kids, c.dataLen), "%v", c.kids)
	}
}

func TestDecodeAndParse(t *testing.T) {
	require.Equal(t, "10.0.0.5", decodeData([]byte("10.0.0.5")))
	require.Equal(t, "", decodeData(nil))
	require.Equal(t, "0x00000007", decodeData([]byte{0, 0, 0, 7}))
	require.Equal(t, "0xff10", decodeData([]byte{0xff, 0x10}))
	require.Equal(t, "0x10000cd05c90001", sessionHex(0x10000cd05c90001))
	require.Equal(t, "0xffffffffffffffff", sessionHex(-1))
	n, ok := parseCount([]byte{0xff, 0xff, 0xff, 0xfd})
	require.True(t, ok)
	require.Equal(t, int32(-3), n)
	require.Equal(t, []byte{0, 0, 0, 7}, encodeCount(7))
	_, ok = parseCount([]byte("7"))
	require.False(t, ok)
	require.Equal(t, 3, *parseLimit([]byte("3")))
	require.Nil(t, parseLimit([]byte("x")))
	require.Nil(t, parseLimit(nil))
	require.Nil(t, parseLimit([]byte("0")))
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                  "0s",
		850 * time.Millisecond:        "850ms",
		42 * time.Second:              "42s",
		3*time.Minute + 7*time.Second: "3m07s",
		5*time.Hour + 2*time.Minute:   "5h02m",
		76 * time.Hour:                "3d04h",
	} {
		require.Equal(t, want, formatAge(d), "%v", d)
	}
}

func TestWriteViewAndJSONFieldNames(t *testing.T) {
	nodes, _ := buildQueue(kindMutex, []rawNode{
		raw(uuidA+"lock-0000000010", "host-a", 10, 42_000),
		raw(uuidB+"lock-0000000011", "host-b", 20, 2000),
	}, now)
	v := &View{Path: "/jobs/nightly", Kind: kindMutex, Nodes: nodes}
	var b bytes.Buffer
	writeView(&b, v)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	require.Equal(t, "/jobs/nightly  mutex  2 nodes", lines[0])
	require.Regexp(t, `^#\s+ROLE\s+NODE\s+SESSION\s+AGE\s+TOKEN\s+DATA\s+WATCHES$`, lines[1])
	require.Regexp(t, `^0\s+holder\s+`+uuidA+`lock-0000000010\s+0x10000cd05c90001\s+42s\s+10\s+host-a\s+-$`, lines[2])
	require.Regexp(t, `^1\s+waiter\s+`+uuidB+`lock-0000000011\s+0x10000cd05c90001\s+2s\s+20\s+host-b\s+`+uuidA+`lock-0000000010$`, lines[3])

	// The JSON field names are documented and stable.
	b.Reset()
	limit, one := 3, 1
	require.NoError(t, writeJSON(&b, &View{Path: "/s", Kind: kindSemaphore, Nodes: nodes[:1], Limit: &limit,
		Acquirers: nodes[1:], Count: &CountView{Value: 1, Version: 2}, Foreign: []string{"x"}}))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &m))
	require.ElementsMatch(t, []string{"path", "kind", "nodes", "acquirers", "limit", "count", "foreign"}, keys(m))
	node := m["acquirers"].([]any)[0].(map[string]any)
	require.ElementsMatch(t, []string{"name", "role", "session", "created", "age_seconds", "data", "token", "watches"}, keys(node))
	require.ElementsMatch(t, []string{"value", "version"}, keys(m["count"].(map[string]any)))

	leases, _ := buildQueue(kindSemaphore, []rawNode{raw(uuidA+"lease-0000000000", "a", 1, 0), raw(uuidB+"lease-0000000001", "b", 2, 0)}, now)
	require.Equal(t, "/s  semaphore  leases 2/3  acquirers 1", headline(&View{Path: "/s", Kind: kindSemaphore, Nodes: leases, Limit: &limit, Acquirers: nodes[1:]}))
	markSemaphoreWaiters(leases, &one)
	require.Equal(t, "/s  semaphore  leases 1/1  waiting 1  acquirers 0", headline(&View{Path: "/s", Kind: kindSemaphore, Nodes: leases, Limit: &one}))
	require.Equal(t, "/s  semaphore  leases 1 (limit not written on the node)  acquirers 0", headline(&View{Path: "/s", Kind: kindSemaphore, Nodes: leases[:1:1]}))
	require.Equal(t, "/c  count  value -1  version 4", headline(&View{Path: "/c", Kind: kindCount, Count: &CountView{Value: -1, Version: 4}}))
}

func keys(m map[string]any) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestEntryOfAndDiagnose(t *testing.T) {
	nodes, _ := buildQueue(kindSemaphore, []rawNode{
		raw(uuidA+"lease-0000000000", "a", 1, 0),
		raw(uuidB+"lease-0000000001", "b", 2, 0),
		raw(uuidC+"lease-0000000002", "c", 3, 0),
	}, now)
	one := 1
	markSemaphoreWaiters(nodes, &one)
	acq, _ := buildQueue(kindMutex, []rawNode{
		raw(uuidA+"lock-0000000000", "c", 4, 0),
		raw(uuidB+"lock-0000000001", "d", 5, 0),
	}, now)
	v := &View{Path: "/s", Kind: kindSemaphore, Nodes: nodes, Acquirers: acq, Limit: &one}
	e := entryOf(v)
	require.Equal(t, []string{"a"}, e.Holders)
	require.Equal(t, 1, *e.Leases)
	require.Equal(t, 3, e.Waiters, "two lease nodes beyond the limit and one acquirer queued in locks/")

	fs := diagnose(v, doctorOpts{})
	require.Len(t, fs, 1)
	require.Equal(t, Finding{Path: "/s", Problem: "over-limit", Detail: "3 lease nodes, limit 1 written on the node"}, fs[0])

	old, foreign := buildQueue(kindMutex, []rawNode{
		raw("_c_0123456789abcdef0123456789abcdef-lock-0000000000", "", 1, int64(3*time.Hour/time.Millisecond)),
		raw("junk", "", 2, 0),
	}, now)
	fs = diagnose(&View{Path: "/l", Kind: kindMutex, Nodes: old, Foreign: foreign}, doctorOpts{olderThan: time.Hour})
	got := []string{}
	for _, f := range fs {
		got = append(got, f.Problem+" "+f.Path)
	}
	require.Equal(t, []string{
		"persistent-parent /l",
		"foreign-child /l/junk",
		"old-holder /l/_c_0123456789abcdef0123456789abcdef-lock-0000000000",
	}, got)
	// At its limit with one acquirer waiting in locks/: normal.
	two := 2
	require.Empty(t, diagnose(&View{Path: "/s", Kind: kindSemaphore, Nodes: nodes, Acquirers: acq[:1], Limit: &two}, doctorOpts{}))
	require.Len(t, diagnose(&View{Path: "/s", Kind: kindSemaphore, Nodes: nodes, Limit: &two}, doctorOpts{}), 1)
	require.Len(t, busySessions(map[string]int{"0x1": 3, "0x2": 1}, 2), 1)
}
