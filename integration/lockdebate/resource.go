package lockdebate

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
)

// tables names one run's tables in the database: the shared resource, the
// history of its accepted writes, and the MySQL lock's rows.
type tables struct {
	Resource string
	History  string
	Locks    string
}

// runName is what a run's names are made of (table names are spliced into
// SQL, so nothing else may pass).
var runName = regexp.MustCompile(`^[a-z0-9]{1,32}$`)

func tablesFor(run string) tables {
	p := "lockdebate_" + run
	return tables{Resource: p + "_resource", History: p + "_history", Locks: p + "_locks"}
}

// createTables makes a run's tables and one resource row per id.
func createTables(ctx context.Context, db *sql.DB, t tables, ids []int) error {
	stmts := []string{
		// The resource: what the lock protects. fence is the highest fencing
		// token a write has carried; only fenced writes look at it.
		`CREATE TABLE ` + t.Resource + ` (
			id     INT PRIMARY KEY,
			value  VARCHAR(255) NOT NULL DEFAULT '',
			writer VARCHAR(64)  NOT NULL DEFAULT '',
			fence  BIGINT       NOT NULL DEFAULT 0,
			writes BIGINT       NOT NULL DEFAULT 0
		) ENGINE=InnoDB`,
		// Every accepted write, in commit order (the resource row's lock
		// orders the writes to one id, and seq is drawn under it).
		`CREATE TABLE ` + t.History + ` (
			seq    BIGINT AUTO_INCREMENT PRIMARY KEY,
			id     INT         NOT NULL,
			writer VARCHAR(64) NOT NULL
		) ENGINE=InnoDB`,
		// The seeds' MySQL lock: a row per held lock, unique by name, with an
		// expiry in the database's clock.
		`CREATE TABLE ` + t.Locks + ` (
			id         BIGINT AUTO_INCREMENT PRIMARY KEY,
			name       VARCHAR(191) NOT NULL,
			owner      VARCHAR(64)  NOT NULL,
			expires_at DATETIME(6)  NOT NULL,
			UNIQUE KEY lock_name (name)
		) ENGINE=InnoDB`,
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create table: %w", err)
		}
	}
	for _, id := range ids {
		if _, err := db.ExecContext(ctx, `INSERT INTO `+t.Resource+` (id) VALUES (?)`, id); err != nil {
			return fmt.Errorf("resource row %d: %w", id, err)
		}
	}
	return nil
}

// dropTables removes a run's tables; tables that are not there are no error.
func dropTables(ctx context.Context, db *sql.DB, t tables) error {
	_, err := db.ExecContext(ctx, `DROP TABLE IF EXISTS `+strings.Join([]string{t.Resource, t.History, t.Locks}, ", "))
	return err
}

// Resource is the shared record that a lock's holders update: a row in a real
// MariaDB table, where a stale write does its harm, and so the one place that
// can refuse it.
type Resource struct {
	db *sql.DB
	t  tables
	id int
}

// Write is a holder's update as users of a lock without fencing write it:
// the row takes whatever comes. It reports whether the write was accepted.
func (r *Resource) Write(ctx context.Context, writer, value string) (bool, error) {
	return r.write(ctx, writer,
		`UPDATE `+r.t.Resource+` SET value = ?, writer = ?, writes = writes + 1 WHERE id = ?`,
		value, writer, r.id)
}

// WriteFenced is the update that carries the writer's fencing token: the
// storage compares it with the highest token it has seen, in the same
// statement that writes, and refuses (accepted false) a token below it. The
// check is "fence <= token", not "<": one holding writes more than once under
// its token, and a later holder's token is strictly greater.
//
// Why a conditional UPDATE rather than a CHECK constraint: a CHECK constraint
// sees only the new row, never the old one, so it cannot say "not below the
// stored fence"; a trigger could, but would hide the rule from the writer and
// turn every refusal into an error to parse. The WHERE clause is evaluated
// under the row's lock, so the compare and the write are one atomic step, and
// "0 rows affected" is the refusal.
func (r *Resource) WriteFenced(ctx context.Context, writer, value string, token int64) (bool, error) {
	return r.write(ctx, writer,
		`UPDATE `+r.t.Resource+` SET value = ?, writer = ?, fence = ?, writes = writes + 1 WHERE id = ? AND fence <= ?`,
		value, writer, token, r.id, token)
}

// write runs update and, when it changed the row, appends the writer to the
// history in the same transaction.
func (r *Resource) write(ctx context.Context, writer, update string, args ...any) (accepted bool, err error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil || !accepted {
			_ = tx.Rollback()
		}
	}()
	res, err := tx.ExecContext(ctx, update, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+r.t.History+` (id, writer) VALUES (?, ?)`, r.id, writer); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	return true, nil
}

// lastSeq is the history's position now: History(lastSeq) lists what comes
// after.
func (r *Resource) lastSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := r.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM `+r.t.History).Scan(&seq)
	return seq, err
}

// history returns the writers of the row's accepted writes after seq, in
// commit order.
func (r *Resource) history(ctx context.Context, after int64) ([]string, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT writer FROM `+r.t.History+` WHERE id = ? AND seq > ? ORDER BY seq`, r.id, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var writers []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, err
		}
		writers = append(writers, w)
	}
	return writers, rows.Err()
}

// overlapping reports whether a history of writers shows two holdings at
// once: a writer whose accepted writes come on both sides of another's
// (A, B, A). Writers name holdings, so this is what the storage itself saw,
// whoever was paused.
func overlapping(writers []string) bool {
	done := map[string]bool{} // holdings another writer came after
	last := ""
	for _, w := range writers {
		if w == last {
			continue
		}
		if done[w] {
			return true
		}
		if last != "" {
			done[last] = true
		}
		last = w
	}
	return false
}
