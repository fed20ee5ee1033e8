package fencingit

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
)

// checkNothingLeft fails t if run left a Redis key, a table or a znode.
func checkNothingLeft(t *testing.T, run string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	rdb := lockdebate.NewRedisClient(redisServer.Addr())
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, lockdebate.RedisKeyPrefix(run)+"*").Result()
	if err != nil {
		t.Errorf("redis KEYS: %v", err)
	} else if len(keys) > 0 {
		t.Errorf("run %s left Redis keys %q", run, keys)
	}

	db, err := sql.Open("mysql", mariaDB.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?`,
		strings.ReplaceAll(lockdebate.TablePrefix(run), "_", `\_`)+"%")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if len(tables) > 0 {
		t.Errorf("run %s left tables %q", run, tables)
	}

	c, err := client.New(client.WithServers(zooKeeper.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := c.Exists(ctx, lockdebate.ZKBase(run)); err != nil || ok {
		t.Errorf("run %s left %s (exists %v, %v)", run, lockdebate.ZKBase(run), ok, err)
	}
}
