package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
)

// options are zkchaos's flags.
type options struct {
	recipes  []string
	duration time.Duration
	servers  int
	parts    int
	session  time.Duration
	fault    time.Duration
	calm     time.Duration
	seed     uint64
	progress time.Duration
	backend  string
}

var errHelp = errors.New("help")

// parseFlags reads args; bad values give an error naming the flag.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("zkchaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	recipe := fs.String("recipe", "all", "recipes to soak, comma-separated, or all: "+strings.Join(chaos.WorkloadNames(), ", "))
	fs.DurationVar(&o.duration, "duration", 30*time.Minute, "how long to soak (rounds start until it is up)")
	fs.IntVar(&o.servers, "servers", 3, "ZooKeeper servers in the throwaway cluster")
	fs.IntVar(&o.parts, "parts", 4, fmt.Sprintf("participants per round (1 to %d)", chaos.MaxParts))
	fs.DurationVar(&o.session, "session", 1500*time.Millisecond, "the participants' session timeout")
	fs.DurationVar(&o.fault, "fault", 40*time.Second, "each round's fault phase")
	fs.DurationVar(&o.calm, "calm", 8*time.Second, "each round's calm phase")
	fs.Uint64Var(&o.seed, "seed", 0, "the first round's seed (0: from the clock); round i uses seed+i")
	fs.DurationVar(&o.progress, "progress", 10*time.Second, "how often to print a progress line")
	fs.StringVar(&o.backend, "backend", "", `zktest backend: local, docker, auto, or "" for $ZK_BACKEND`)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, errHelp
		}
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if *recipe == "all" {
		o.recipes = chaos.WorkloadNames()
	} else {
		for _, r := range strings.Split(*recipe, ",") {
			if _, err := chaos.WorkloadOf(strings.TrimSpace(r)); err != nil {
				return o, fmt.Errorf("-recipe: %w", err)
			}
			o.recipes = append(o.recipes, strings.TrimSpace(r))
		}
	}
	switch {
	case o.duration <= 0:
		return o, fmt.Errorf("-duration must be > 0, got %v", o.duration)
	case o.servers < 1:
		return o, fmt.Errorf("-servers must be >= 1, got %d", o.servers)
	case o.parts < 1 || o.parts > chaos.MaxParts:
		return o, fmt.Errorf("-parts must be 1 to %d, got %d", chaos.MaxParts, o.parts)
	case o.session < 100*time.Millisecond:
		return o, fmt.Errorf("-session must be >= 100ms, got %v", o.session)
	case o.fault <= 0 || o.calm <= 0:
		return o, fmt.Errorf("-fault and -calm must be > 0, got %v and %v", o.fault, o.calm)
	case o.progress <= 0:
		return o, fmt.Errorf("-progress must be > 0, got %v", o.progress)
	case !slices.Contains([]string{"local", "docker", "auto", ""}, o.backend):
		return o, fmt.Errorf(`-backend must be local, docker, auto or "", got %q`, o.backend)
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	return o, nil
}
