package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The recipe names -recipe accepts.
const (
	recipeMutex  = "mutex"
	recipeGozk   = "gozk"
	recipeNaive  = "naive"
	recipeFloor  = "floor"
	recipeRWLock = "rwlock"
)

var recipeNames = slices.Concat([]string{recipeMutex, recipeGozk, recipeNaive, recipeFloor, recipeRWLock, recipeCuratorMutex, recipeCuratorRWLock, recipeMultiLock, recipeCuratorMultiLock}, semRecipeNames, electRecipeNames, cacheRecipeNames, counterRecipeNames, queueRecipeNames, []string{recipeQueueListing})

// newRecipe makes a fresh directory for the run and returns the recipe's
// worker factory.
func newRecipe(ctx context.Context, e *env, cfg runConfig) (*recipe, error) {
	dir, err := e.runDir(fmt.Sprintf("%s-w%d", cfg.recipe, cfg.workers))
	if err != nil {
		return nil, err
	}
	switch cfg.recipe {
	case recipeMutex:
		return mutexRecipe(e, dir, cfg.session), nil
	case recipeGozk:
		return gozkRecipe(e, dir, cfg.session), nil
	case recipeNaive:
		return naiveRecipe(e, dir, cfg.session), nil
	case recipeFloor:
		return floorRecipe(e, dir, cfg.session, cfg.workers), nil
	case recipeRWLock:
		return rwlockRecipe(ctx, e, dir, cfg)
	case recipeMultiLock:
		return multiLockRecipe(e, dir, cfg.session), nil
	}
	return nil, fmt.Errorf("unknown recipe %q", cfg.recipe)
}

// startClient opens a zkrecipes client with a session of its own.
func startClient(ctx context.Context, e *env, session time.Duration) (*client.Client, error) {
	opts := []client.Option{
		client.WithServers(e.servers...),
		client.WithSessionTimeout(session),
		client.WithLogger(e.logger),
	}
	if d := e.dialer(); d != nil {
		opts = append(opts, client.WithDialer(d))
	}
	c, err := client.New(opts...)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}
