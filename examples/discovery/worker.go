package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// roleFlag, as the first argument, makes the command a worker process
// (what the parent starts ten of) instead of the demo.
const roleFlag = "-role=worker"

// serviceName is the service every worker registers an instance of.
const serviceName = "workers"

// isWorker reports whether args (without the program name) ask for the
// worker role.
func isWorker(args []string) bool { return len(args) > 0 && args[0] == roleFlag }

// workerMain is a worker process's main: it runs until its standard input
// closes (the parent stops it so) or it is signalled, and returns the
// process's exit code.
func workerMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the parent closes our stdin to stop us, or dies
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := work(ctx, args); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// work listens, registers the instance, serves until ctx ends, and
// unregisters.
func work(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper servers `host:port,...`")
	id := fs.String("id", "", "this worker's id (its instance's id)")
	base := fs.String("base", "", "the discovery base path")
	session := fs.Duration("session", 2*time.Second, "session timeout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *zkFlag == "" || *id == "" || *base == "" {
		return errors.New("-zk, -id and -base are required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a port of its own
	if err != nil {
		return fmt.Errorf("%s: listen: %w", *id, err)
	}
	defer ln.Close()
	go serve(ln, *id)

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := connect(ctx, strings.Split(*zkFlag, ","), logger, *session)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", *id, err)
	}
	defer c.Close()
	d, err := discovery.New(c, *base)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	inst := discovery.NewInstance(serviceName)
	inst.ID, inst.Address, inst.Port = *id, addr.IP.String(), addr.Port
	inst.URISpec = discovery.MustParseURISpec("{scheme}://{address}:{port}")
	if err := d.Register(ctx, inst); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it was registered
		}
		return fmt.Errorf("%s: register: %w", *id, err)
	}
	fmt.Printf("%s registered at %s\n", *id, inst.BuildURI(nil))
	<-ctx.Done()
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Close(cctx); err != nil { // unregisters
		return fmt.Errorf("%s: unregister: %w", *id, err)
	}
	return nil
}

// serve answers each connection with the worker's id, until ln closes.
func serve(ln net.Listener, id string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = fmt.Fprintln(conn, id)
		_ = conn.Close()
	}
}
