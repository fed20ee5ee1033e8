package lockdebate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mariaDBDatabase is the database a throwaway MariaDB serves the debate's
// tables in.
const mariaDBDatabase = "lockdebate"

// MariaDB is a throwaway MariaDB server from Debian's mariadb-server package:
// a data directory made by mariadb-install-db in a temporary directory,
// mariadbd bound to 127.0.0.1 on a port of its own, run as a plain child
// process (never a system service) until Close. Its root user has no
// password; DSN names a database made for the debate.
type MariaDB struct {
	port int
	dir  string
	proc *proc
}

// StartMariaDB makes a data directory, starts mariadbd on it and returns
// once the server answers and its database exists (a few seconds).
func StartMariaDB(ctx context.Context) (*MariaDB, error) {
	installDB, err := program("mariadb-install-db")
	if err != nil {
		return nil, err
	}
	mariadbd, err := program("mariadbd")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lockdebate-mariadb-")
	if err != nil {
		return nil, err
	}
	m, err := startMariaDB(ctx, installDB, mariadbd, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return m, nil
}

func startMariaDB(ctx context.Context, installDB, mariadbd, dir string) (*MariaDB, error) {
	// mariadbd refuses to run as root unless told which user to be; it runs
	// as whoever started it.
	who := "mysql"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	data := filepath.Join(dir, "data")
	install, err := startProc("mariadb-install-db", filepath.Join(dir, "install.log"), installDB,
		"--no-defaults", "--datadir="+data, "--user="+who,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve")
	if err != nil {
		return nil, err
	}
	if err := install.wait(ctx); err != nil {
		return nil, fmt.Errorf("mariadb-install-db failed (%w); the end of its log:\n%s", err, install.logTail())
	}
	for attempt := 1; ; attempt++ {
		m, err := startMariaDBOnce(ctx, mariadbd, dir, who)
		if err == nil {
			return m, nil
		}
		if m == nil || !m.proc.addrInUse() || attempt == 3 {
			return nil, err
		}
	}
}

func startMariaDBOnce(ctx context.Context, mariadbd, dir, who string) (*MariaDB, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := startProc("mariadbd", filepath.Join(dir, "mariadbd.log"), mariadbd,
		"--no-defaults",
		"--datadir="+filepath.Join(dir, "data"),
		"--user="+who,
		"--port="+strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--socket="+filepath.Join(dir, "mysqld.sock"),
		"--pid-file="+filepath.Join(dir, "mysqld.pid"),
		"--skip-name-resolve",
		"--skip-log-bin",
		"--innodb-buffer-pool-size=32M",
		// A throwaway: commits need not reach the disk.
		"--innodb-flush-log-at-trx-commit=0",
	)
	if err != nil {
		return nil, err
	}
	m := &MariaDB{port: port, dir: dir, proc: p}
	if err := m.waitReady(ctx); err != nil {
		_ = p.kill()
		return m, err
	}
	return m, nil
}

// waitReady polls until the server answers, then makes the database.
func (m *MariaDB) waitReady(ctx context.Context) error {
	cfg := m.config()
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		err = db.PingContext(pctx)
		pcancel()
		if err == nil {
			break
		}
		if xerr := m.proc.exited(); xerr != nil {
			return xerr
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("mariadbd on port %d did not answer: %w (last: %v)", m.port, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+mariaDBDatabase)
	return err
}

// config is the connection configuration of DSN.
func (m *MariaDB) config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = loopback(m.port)
	cfg.DBName = mariaDBDatabase
	cfg.Timeout = 5 * time.Second
	return cfg
}

// DSN is a go-sql-driver/mysql data source name for the server's database.
func (m *MariaDB) DSN() string { return m.config().FormatDSN() }

// Close stops the server and removes its directory. It may be called more
// than once.
func (m *MariaDB) Close() error {
	err := m.proc.kill()
	return errors.Join(err, os.RemoveAll(m.dir))
}
