// Command chaos runs random schedules of heron's write commands with faults
// injected and checks the invariants after each (tests/chaos):
//
//	chaos [-schedules 200] [-seed 1] [-workers 2] [-break KIND] [-keep]
//	      [-heron bin/heron] [-failpoints bin/heron-failpoints] [-dir DIR]
//
// Schedules are seeds -seed, -seed+1, ...; each failure prints its seed and
// the command that replays it. Exit 1 when an invariant broke or a schedule
// could not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/heron-shell/heron/tests/chaos"
)

func main() {
	schedules := flag.Int("schedules", 200, "how many schedules (seeds) to run")
	seed := flag.Uint64("seed", 1, "the first seed")
	workers := flag.Int("workers", 2, "schedules at a time")
	broken := flag.String("break", "", "HERON_APPLY_BREAK of the failpoints build (a deliberately broken heron)")
	keep := flag.Bool("keep", false, "keep the folders of failed schedules")
	heron := flag.String("heron", "bin/heron", "the release heron")
	failpoints := flag.String("failpoints", "bin/heron-failpoints", "heron built with -tags failpoints")
	dir := flag.String("dir", "", "folder for the schedules (default: a temporary one)")
	quiet := flag.Bool("quiet", false, "no line per schedule")
	flag.Parse()
	if err := run(*schedules, *seed, *workers, *broken, *keep, *heron, *failpoints, *dir, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func run(schedules int, seed uint64, workers int, broken string, keep bool, heron, failpoints, dir string, quiet bool) error {
	if schedules < 1 || workers < 1 {
		return fmt.Errorf("-schedules and -workers must be at least 1")
	}
	bins := chaos.Bins{}
	for _, b := range []struct {
		path string
		dst  *string
	}{{heron, &bins.Heron}, {failpoints, &bins.Failpoints}} {
		abs, err := filepath.Abs(b.path)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%w (make build build-failpoints)", err)
		}
		*b.dst = abs
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "heron-chaos-")
		if err != nil {
			return err
		}
		if !keep { // kept failures are printed with their folder
			defer func() { _ = os.RemoveAll(tmp) }()
		}
		dir = tmp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := chaos.Config{Bins: bins, Dir: dir, Workers: workers, Break: broken, Keep: keep, Replay: "make chaos SEED=%d SCHEDULES=1"}
	if broken != "" {
		cfg.Replay += " BREAK=" + broken
	}
	for i := range schedules {
		cfg.Seeds = append(cfg.Seeds, seed+uint64(i))
	}
	if !quiet {
		cfg.Progress = os.Stderr
	}
	rep := chaos.Run(ctx, cfg)
	rep.Write(os.Stdout)
	if len(rep.Failures) > 0 {
		return fmt.Errorf("%d schedules failed (replay each with the command above)", len(rep.Failures))
	}
	return nil
}
