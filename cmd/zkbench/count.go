package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// With -count, every worker's connection (not the admin session's) goes
// through one faultlink.Link, which counts the requests the workers send by
// opcode (the java benches' through a loopback proxy per server, see
// javaServers). A run then adds to its line the requests per measured cycle (per
// term for run), e.g. "req_per_op=create:1.00,getChildren:1.00,delete:1.00":
// what the recipe asks of the server, counted from the client's side. The
// Go recipes' lines also get cpu_us_per_op, the CPU time this process used
// per cycle (per term): the clients' cost, the servers' excluded.

// countedOps are the opcodes -count reports, in this order, with their names.
var countedOps = []struct {
	op   int32
	name string
}{
	{faultlink.OpCreate, "create"}, {faultlink.OpCreate2, "create2"},
	{faultlink.OpCreateContainer, "createContainer"}, {faultlink.OpDelete, "delete"},
	{faultlink.OpExists, "exists"}, {faultlink.OpGetData, "getData"},
	{faultlink.OpSetData, "setData"}, {faultlink.OpGetChildren, "getChildren"},
	{faultlink.OpGetChildren2, "getChildren2"}, {faultlink.OpSync, "sync"},
	{faultlink.OpCheck, "check"}, {faultlink.OpMulti, "multi"},
	{faultlink.OpSetWatches, "setWatches"}, {faultlink.OpPing, "ping"},
}

// requestCounts is a snapshot of a link's counters, by opcode.
type requestCounts map[int32]int64

// dialer returns the workers' dialer: nil (the default) without -count.
func (e *env) dialer() func(network, address string, timeout time.Duration) (net.Conn, error) {
	if e.link == nil {
		return nil
	}
	return e.link.Dial
}

// requests snapshots the workers' request counters (nil without -count).
func (e *env) requests() requestCounts {
	if e.link == nil {
		return nil
	}
	out := requestCounts{}
	for _, o := range countedOps {
		out[o.op] = e.link.Requests(o.op)
	}
	return out
}

// perOp renders after - before per op as the req_per_op field, "" when
// nothing was counted.
func perOp(before, after requestCounts, ops int) string {
	if before == nil || after == nil || ops <= 0 {
		return ""
	}
	var parts []string
	for _, o := range countedOps {
		if d := after[o.op] - before[o.op]; d > 0 {
			parts = append(parts, fmt.Sprintf("%s:%.2f", o.name, float64(d)/float64(ops)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " req_per_op=" + strings.Join(parts, ",")
}

// javaServers returns the addresses the java benches connect to: the
// servers themselves, or, with -count, one loopback proxy per server that
// forwards through the counting link, so that Curator's requests are
// counted as the Go workers' are. The proxies live until env.close.
func (e *env) javaServers() ([]string, error) {
	if e.link == nil {
		return e.servers, nil
	}
	e.proxyOnce.Do(func() {
		for _, s := range e.servers {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				e.proxyErr = err
				return
			}
			e.proxies = append(e.proxies, ln)
			e.proxyAddrs = append(e.proxyAddrs, ln.Addr().String())
			go e.forward(ln, s)
		}
	})
	return e.proxyAddrs, e.proxyErr
}

// forward accepts connections on ln and joins each to a connection to
// server dialled through the counting link, until ln is closed.
func (e *env) forward(ln net.Listener, server string) {
	for {
		down, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			up, err := e.link.Dial("tcp", server, 10*time.Second)
			if err != nil {
				_ = down.Close()
				return
			}
			go func() {
				_, _ = io.Copy(up, down)
				_ = up.Close()
			}()
			_, _ = io.Copy(down, up)
			_ = down.Close()
		}()
	}
}

// cpuTime is the CPU time (user and system, all threads) this process has
// used so far; 0 where getrusage fails.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp renders the CPU time this process (the Go workers' clients) used
// per op as the cpu_us_per_op field, "" when ops is 0.
func cpuPerOp(used time.Duration, ops int) string {
	if ops <= 0 {
		return ""
	}
	return fmt.Sprintf(" cpu_us_per_op=%.0f", float64(used.Microseconds())/float64(ops))
}
