package client

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/go-zookeeper/zk"
)

// Seeding the sentinel (see sentinel.go): go-zookeeper re-sends its watches
// (and reads the last zxid it saw to do so) on every connection, the first
// one of a session too, but only when its watcher table is not empty. A
// session's first connection used to have an empty table, so nothing told
// the liveConn whether go-zookeeper would read the zxid or not, and it could
// hold nothing: if the sentinel's own reply was handled before
// go-zookeeper's connection goroutine reached its re-send (a goroutine
// descheduled for a round trip, which a loaded -race run does), the read
// raced with the next replies. seedSentinel puts the sentinel into the table
// before each connection is made (the dialer runs on go-zookeeper's
// connection goroutine, before the connection's handshake), so every
// connection re-sends it, and every connection holds its replies until it
// has: no order of goroutines is left to chance.
//
// go-zookeeper keeps the table in unexported fields, so this reaches them
// through reflect and unsafe. It is checked against the field names and
// types of go-zookeeper v1.0.4; on any other layout seedSentinel does
// nothing and reports false, and the client falls back to holding replies
// on resumed connections only (the sentinel set by a request).

// zkWatchTypeExist is go-zookeeper's watchTypeExist (v1.0.4: data 0, exist 1,
// child 2), the kind of watch Conn.ExistsW leaves.
const zkWatchTypeExist = 1

// zkLayout is where go-zookeeper keeps its watcher table, when its layout is
// the one seedSentinel knows.
var zkLayout = sync.OnceValues(func() (layout watcherLayout, ok bool) {
	t := reflect.TypeFor[zk.Conn]()
	table, ok1 := t.FieldByName("watchers")
	lock, ok2 := t.FieldByName("watchersLock")
	if !ok1 || !ok2 || lock.Type != reflect.TypeFor[sync.Mutex]() ||
		table.Type.Kind() != reflect.Map || table.Type.Elem() != reflect.TypeFor[[]chan zk.Event]() {
		return watcherLayout{}, false
	}
	key := table.Type.Key()
	if key.Kind() != reflect.Struct || key.NumField() != 2 {
		return watcherLayout{}, false
	}
	path, kind := key.Field(0), key.Field(1)
	if path.Name != "path" || path.Type.Kind() != reflect.String || kind.Name != "wType" || kind.Type.Kind() != reflect.Int {
		return watcherLayout{}, false
	}
	layout = watcherLayout{table: table.Index, lock: lock.Index}
	if cb, ok := t.FieldByName("setWatchCallback"); ok && cb.Type.Kind() == reflect.Func &&
		cb.Type.NumIn() == 1 && cb.Type.NumOut() == 0 && cb.Type.In(0).Kind() == reflect.Slice {
		layout.callback = cb.Index
	}
	return layout, true
})

// watcherLayout locates go-zookeeper's watcher table, its lock and (nil when
// absent) its setWatches callback.
type watcherLayout struct{ table, lock, callback []int }

// seedSentinel makes sure conn's watcher table holds an existence watch on
// sentinelPath, and reports whether it does. The entry's channel has room for
// the one event go-zookeeper sends it when the session ends (or the
// connection closes) and it empties the table; the dial that follows seeds
// it again.
func seedSentinel(conn *zk.Conn) bool {
	layout, ok := zkLayout()
	if conn == nil || !ok {
		return false
	}
	v := reflect.ValueOf(conn).Elem()
	mu := (*sync.Mutex)(unsafe.Pointer(v.FieldByIndex(layout.lock).UnsafeAddr()))
	table := writable(v.FieldByIndex(layout.table))
	key := reflect.New(table.Type().Key()).Elem()
	writable(key.Field(0)).SetString(sentinelPath)
	writable(key.Field(1)).SetInt(zkWatchTypeExist)

	mu.Lock()
	defer mu.Unlock()
	if table.IsNil() {
		return false
	}
	if cur := table.MapIndex(key); cur.IsValid() && cur.Len() > 0 {
		return true
	}
	table.SetMapIndex(key, reflect.ValueOf([]chan zk.Event{make(chan zk.Event, 1)}))
	return true
}

// writable returns an addressable field's value, settable although the
// field is unexported.
func writable(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// hookSetWatches makes go-zookeeper call read each time it has read its
// last zxid to re-send its watches: go-zookeeper calls its (unexported)
// setWatches callback from sendSetWatches on its connection goroutine, just
// after that read, whenever it has watches to re-send (with the sentinel
// seeded, on every connection). It reports whether the hook is in place.
//
// The liveConn's hold ends on that call rather than on the first setWatches
// it sees written: a setWatches left in go-zookeeper's send queue by the
// previous connection (whose sender ran after that connection ended) is
// written first on the next one, before that one's own read, and ended the
// hold too early (a loaded CI run caught the race that let through).
// Must run on go-zookeeper's connection goroutine (the dialer does), which
// is the one that reads the field.
func hookSetWatches(conn *zk.Conn, read func()) bool {
	layout, ok := zkLayout()
	if conn == nil || !ok || layout.callback == nil {
		return false
	}
	field := writable(reflect.ValueOf(conn).Elem().FieldByIndex(layout.callback))
	field.Set(reflect.MakeFunc(field.Type(), func([]reflect.Value) []reflect.Value {
		read()
		return nil
	}))
	return true
}
