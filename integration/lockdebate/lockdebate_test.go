package lockdebate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestOverlapping(t *testing.T) {
	for _, tc := range []struct {
		writers []string
		want    bool
	}{
		{nil, false},
		{[]string{"A#1"}, false},
		{[]string{"A#1", "A#1", "B#1"}, false},        // one after the other
		{[]string{"A#1", "B#1", "A#1"}, true},         // A on both sides of B
		{[]string{"A#1", "B#1", "B#1", "A#1"}, true},  // however many B wrote
		{[]string{"A#1", "B#1", "A#2", "B#2"}, false}, // new holdings each time
		{[]string{"A#1", "B#1", "C#1", "B#1"}, true},  // B around C
		{[]string{"B#3", "A#4", "A#4", "B#4"}, false}, // rounds in order
	} {
		if got := overlapping(tc.writers); got != tc.want {
			t.Errorf("overlapping(%q) = %v, want %v", tc.writers, got, tc.want)
		}
	}
}

func TestWriteTables(t *testing.T) {
	var b bytes.Buffer
	err := WriteTables(&b,
		[]Tally{
			{Kind: KindRedis, Rounds: 20, Overlaps: 20, StaleAccepted: 20, MedianPause: 503 * time.Millisecond},
			{Kind: KindZKFenced, Rounds: 20, StaleRefused: 20, MedianPause: 1070400 * time.Microsecond},
		},
		[]FailoverTally{{Scenario: ZKFailoverScenario, Rounds: 3, Kept: 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := `| lock                            | rounds | overlaps | stale writes accepted | stale writes refused | median pause |
| ------------------------------- | -----: | -------: | --------------------: | -------------------: | -----------: |
| Redis SET NX PX, Lua release    |     20 |       20 |                    20 |                    0 |        503ms |
| zkrecipes mutex + fencing token |     20 |        0 |                     0 |                   20 |        1.07s |

| failover                                                      | rounds | two holders | first lock kept |
| ------------------------------------------------------------- | -----: | ----------: | --------------: |
| zkrecipes mutex: ensemble leader killed right after the grant |      3 |           0 |               3 |
`
	if b.String() != want {
		t.Errorf("tables:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTables(&b, nil, nil); err != nil || b.Len() != 0 {
		t.Errorf("no tallies printed %q (%v), want nothing", b.String(), err)
	}
}

func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds {
		if !k.valid() || seen[k.String()] || strings.Contains(k.String(), "lock kind") {
			t.Errorf("kind %q: valid %v, description %q", string(k), k.valid(), k.String())
		}
		seen[k.String()] = true
	}
	if Kind("etcd").valid() || Kind("etcd").String() != `lock kind "etcd"` {
		t.Errorf("an unknown kind is valid or described as %q", Kind("etcd").String())
	}
	if !KindZK.zooKeeper() || !KindZKFenced.zooKeeper() || KindRedis.zooKeeper() || KindMySQL.zooKeeper() {
		t.Error("zooKeeper() is wrong for some kind")
	}
}

func TestPauseConfigRejects(t *testing.T) {
	good := PauseConfig{Redis: "r:1", MySQL: "u@tcp(h:1)/d", ZK: []string{"z:1"}, Rounds: 1, Lease: time.Second, Session: time.Second}
	for name, change := range map[string]func(*PauseConfig){
		"zero rounds":   func(c *PauseConfig) { c.Rounds = 0 },
		"no database":   func(c *PauseConfig) { c.MySQL = "" },
		"no redis":      func(c *PauseConfig) { c.Redis = "" },
		"no zookeeper":  func(c *PauseConfig) { c.ZK = nil },
		"short lease":   func(c *PauseConfig) { c.Lease = time.Millisecond },
		"no session":    func(c *PauseConfig) { c.Session = 0 },
		"unknown kind":  func(c *PauseConfig) { c.Kinds = []Kind{"etcd"} },
		"kind twice":    func(c *PauseConfig) { c.Kinds = []Kind{KindMySQL, KindMySQL} },
		"bad run name":  func(c *PauseConfig) { c.Run = "x; DROP TABLE y" },
		"long run name": func(c *PauseConfig) { c.Run = strings.Repeat("a", 33) },
	} {
		cfg := good
		change(&cfg)
		if _, err := PlayPause(context.Background(), cfg); err == nil {
			t.Errorf("%s: PlayPause accepted %+v", name, cfg)
		}
	}
	// Only what the chosen kinds need is required.
	cfg := PauseConfig{MySQL: "u@tcp(h:1)/d", Rounds: 1, Lease: time.Second, Kinds: []Kind{KindMySQL}}
	if err := cfg.normalize(); err != nil || cfg.Run == "" || cfg.Logger == nil {
		t.Errorf("MySQL only: %v (run %q)", err, cfg.Run)
	}
}

func TestValidateDSN(t *testing.T) {
	if err := ValidateDSN("root:secret@tcp(127.0.0.1:3306)/db"); err != nil {
		t.Errorf("a good DSN: %v", err)
	}
	for _, dsn := range []string{"", "not a dsn", "root:secret@tcp(127.0.0.1:3306)/"} {
		err := ValidateDSN(dsn)
		if err == nil {
			t.Errorf("ValidateDSN(%q) accepted it", dsn)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("ValidateDSN(%q) shows the password: %v", dsn, err)
		}
	}
}

func TestUnreachableError(t *testing.T) {
	cause := errors.New("connection refused")
	var err error = &UnreachableError{What: "Redis", Addr: "127.0.0.1:1", Err: cause}
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, cause) {
		t.Errorf("%v is not ErrUnreachable and its cause", err)
	}
	if want := "Redis at 127.0.0.1:1 is unreachable: connection refused"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestCheckRefusesDeadServers(t *testing.T) {
	ctx := context.Background()
	dead := deadListener(t)
	for name, err := range map[string]error{
		"redis":     CheckRedis(ctx, dead),
		"mysql":     CheckMySQL(ctx, "root:pw@tcp("+dead+")/db"),
		"zookeeper": CheckZK(ctx, []string{dead}, nil),
	} {
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Addr == "" || strings.Contains(err.Error(), ":pw@") {
			t.Errorf("%s: %v, want an *UnreachableError naming the address, without the password", name, err)
		}
	}
}

// deadListener is a loopback address where nothing listens any more.
func deadListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func TestProcessState(t *testing.T) {
	state, err := processState(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if state != 'R' && state != 'S' {
		t.Errorf("this process is in state %q, want running or sleeping", state)
	}
	if _, err := processState(-1); err == nil {
		t.Error("no error for pid -1")
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 5}
	_, _ = io.WriteString(b, "abc")
	_, _ = io.WriteString(b, "defg")
	if got := b.String(); got != "cdefg" {
		t.Errorf("tail %q, want %q", got, "cdefg")
	}
}

// TestRelayHold forwards both ways until Hold, after which nothing from the
// upstream side reaches the downstream one, while the other way still flows.
func TestRelayHold(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	r, err := startRelay(up.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	down, err := net.Dial("tcp", r.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	server, err := up.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	expect := func(c net.Conn, want string) {
		t.Helper()
		buf := make([]byte, len(want))
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != want {
			t.Fatalf("read %q (%v), want %q", buf, err, want)
		}
	}
	_, _ = server.Write([]byte("before"))
	expect(down, "before")
	_, _ = down.Write([]byte("ping"))
	expect(server, "ping")

	r.Hold()
	_, _ = server.Write([]byte("withheld"))
	_, _ = down.Write([]byte("still up"))
	expect(server, "still up")
	_ = down.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := down.Read(make([]byte, 16)); n != 0 || err == nil {
		t.Errorf("read %d bytes after Hold (%v), want none", n, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}
