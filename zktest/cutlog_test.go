package zktest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// cutLogName names the planted log after every real one (its first zxid the
// highest), so that ZooKeeper reads it when it starts.
const cutLogName = "log.7fffffffffffffff"

// plantCutLog puts an empty transaction log into stopped server i's log
// directory, as a SIGKILL right after ZooKeeper created a new log leaves one.
func plantCutLog(ctx context.Context, t *testing.T, c *Cluster, i int) {
	t.Helper()
	switch d := c.drv.(type) {
	case *localDriver:
		s, err := d.server(i)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(s.dir, "data", "version-2")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, cutLogName), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	case *dockerDriver:
		ctr, err := d.ctr(i)
		if err != nil {
			t.Fatal(err)
		}
		// The entrypoint's dataLogDir (/datalog) holds the logs.
		if err := ctr.CopyToContainer(ctx, nil, "/datalog/version-2/"+cutLogName, 0o644); err != nil {
			t.Fatalf("docker cp: %v", err)
		}
	default:
		t.Fatalf("no way to plant a log for driver %T", d)
	}
}
