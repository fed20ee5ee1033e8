package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
)

// recipeQueueListing measures what a queue costs as it grows: the listing
// every consumer of Curator's makes on every change of the queue (each put
// and each removal), and where ZooKeeper stops answering it. It grows one
// queue of plain Curator item names ("queue-<seq>", 16 bytes of data each)
// to each size up to -iters items, made 500 at a time in one transaction,
// and at each size lists it 5 times with a client of its own, printing one
// line per size:
//
//	recipe=queue-listing items=10000 reply_kb=195.3 list_p50_ms=3.20 list_max_ms=4.10 ok=true
//
// reply_kb is the listing's reply (names and their lengths); ok=false ends
// the run, with the error the listing got.
const recipeQueueListing = "queue-listing"

// queueListingSizes are the sizes measured, up to -iters.
var queueListingSizes = []int{1000, 5000, 10000, 25000, 40000, 50000, 55000, 60000, 80000, 100000}

func runQueueListing(ctx context.Context, e *env, cfg runConfig, stdout io.Writer) error {
	dir, err := e.runDir("queue-listing")
	if err != nil {
		return err
	}
	c, err := startClient(ctx, e, cfg.session)
	if err != nil {
		return err
	}
	defer c.Close()
	items := dir + "/items"
	if err := c.EnsureContainers(ctx, items); err != nil {
		return err
	}
	var made []string
	defer func() { // the run directory is deleted one node at a time: go faster
		for i := 0; i < len(made); i += 500 {
			var ops []any
			for _, p := range made[i:min(i+500, len(made))] {
				ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
			}
			if _, err := c.Multi(context.Background(), ops...); err != nil {
				return
			}
		}
	}()
	data := make([]byte, 16)
	for _, size := range queueListingSizes {
		if size > cfg.iters {
			break
		}
		for len(made) < size {
			var ops []any
			for range min(500, size-len(made)) {
				ops = append(ops, &zk.CreateRequest{Path: items + "/queue-", Data: data, Flags: zk.FlagSequence})
			}
			res, err := c.Multi(ctx, ops...)
			if err != nil {
				return fmt.Errorf("grow the queue to %d: %w", size, err)
			}
			for _, r := range res {
				made = append(made, r.String)
			}
		}
		lister, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return err
		}
		var lat []time.Duration
		var listErr error
		bytes := 0
		for range 5 {
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			start := time.Now()
			kids, _, err := lister.Children(lctx, items)
			cancel()
			if err != nil {
				listErr = err
				break
			}
			lat = append(lat, time.Since(start))
			bytes = 4
			for _, k := range kids {
				bytes += 4 + len(k)
			}
		}
		_ = lister.Close()
		if listErr != nil {
			_, err = fmt.Fprintf(stdout, "recipe=%s items=%d ok=false err=%q\n", recipeQueueListing, size, listErr.Error())
			return err
		}
		slices.Sort(lat)
		if _, err := fmt.Fprintf(stdout, "recipe=%s items=%d reply_kb=%.1f list_p50_ms=%.2f list_max_ms=%.2f ok=true\n",
			recipeQueueListing, size, float64(bytes)/1024, millis(percentile(lat, 50)), millis(lat[len(lat)-1])); err != nil {
			return err
		}
	}
	return nil
}
