package client

import "time"

// Request goroutines. Every request whose ctx can end runs on a goroutine
// of its own (see await), so that its caller can return the moment ctx
// ends. Starting a fresh goroutine per request costs more than the request
// itself on the client's side: go-zookeeper's request path grows a new
// goroutine's stack twice (each growth copies the stack). So the goroutines
// are kept: one that has run a request waits a little (workerIdle) for the
// next, from any client, before it exits. Under load a few warm goroutines
// carry every request; an idle process keeps none.

// workerIdle is how long a request goroutine waits for another request
// before it exits.
const workerIdle = 20 * time.Millisecond

// workTasks hands a request to a waiting goroutine. It is unbuffered: a
// send succeeds only when a goroutine is there to take it.
var workTasks = make(chan func())

// goRun runs task on a waiting request goroutine, or on a new one when none
// waits.
func goRun(task func()) {
	select {
	case workTasks <- task:
	default:
		go work(task)
	}
}

// work runs task, then every task handed to it, until none comes for
// workerIdle.
func work(task func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		task()
		task = nil // nothing of it stays reachable while waiting
		t.Reset(workerIdle)
		select {
		case task = <-workTasks:
		case <-t.C:
			return
		}
	}
}
