package chaos

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is a run of many schedules.
type Config struct {
	Bins    Bins
	Dir     string   // a folder for the schedules' folders
	Seeds   []uint64 // the schedules to run
	Workers int      // schedules at a time
	Break   string   // HERON_APPLY_BREAK of the failpoints build
	// Keep leaves the folder of a schedule that broke an invariant (its
	// etcd data, backups and plans) for a look.
	Keep bool
	// Progress gets one line per schedule (nil: none).
	Progress io.Writer
	// Replay is the command that replays one seed, for the report
	// ("make chaos SEED=%d", with BREAK= when Break is set).
	Replay string
}

// Failure is a schedule that broke invariants, or that the harness could
// not run.
type Failure struct {
	Schedule   Schedule
	Violations []Violation
	Log        []string
	Err        error
	Dir        string
}

// Report sums a run.
type Report struct {
	Schedules  int
	Steps      int
	Injected   map[Fault]int
	Commands   map[Command]int
	Refused    map[Command]int
	Recoveries int
	// EndChecks counts the schedules whose end restored every backup and
	// compared the seeded instance; EndSkipped why others did not.
	EndChecks  int
	EndSkipped map[string]int
	Violations int
	Failures   []Failure
	Seconds    float64
	replay     string
	keep       bool
}

// Run runs the schedules of cfg.Seeds, cfg.Workers at a time.
func Run(ctx context.Context, cfg Config) *Report {
	start := time.Now()
	rep := &Report{Injected: map[Fault]int{}, Commands: map[Command]int{}, Refused: map[Command]int{}, EndSkipped: map[string]int{}, replay: cfg.Replay, keep: cfg.Keep}
	seeds := make(chan uint64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				s := Generate(seed)
				dir := filepath.Join(cfg.Dir, fmt.Sprintf("seed-%d", seed))
				res, err := RunSchedule(ctx, s, Options{Bins: cfg.Bins, Dir: dir, Break: cfg.Break})
				mu.Lock()
				rep.add(s, res, err, dir)
				if cfg.Progress != nil {
					fmt.Fprintln(cfg.Progress, progressLine(s, res, err))
				}
				mu.Unlock()
				if err == nil && len(res.Violations) == 0 || !cfg.Keep {
					_ = os.RemoveAll(dir)
				}
			}
		}()
	}
	for _, s := range cfg.Seeds {
		if ctx.Err() != nil {
			break
		}
		seeds <- s
	}
	close(seeds)
	wg.Wait()
	sort.Slice(rep.Failures, func(i, j int) bool { return rep.Failures[i].Schedule.Seed < rep.Failures[j].Schedule.Seed })
	rep.Seconds = time.Since(start).Seconds()
	return rep
}

func (rep *Report) add(s Schedule, res *Result, err error, dir string) {
	rep.Schedules++
	if err != nil {
		rep.Failures = append(rep.Failures, Failure{Schedule: s, Err: err, Dir: dir})
		return
	}
	rep.Steps += len(s.Steps)
	for k, n := range res.Injected {
		rep.Injected[k] += n
	}
	for k, n := range res.Commands {
		rep.Commands[k] += n
	}
	for k, n := range res.Refused {
		rep.Refused[k] += n
	}
	switch {
	case len(res.Violations) > 0:
	case res.EndCheck == "":
		rep.EndChecks++
	case strings.HasPrefix(res.EndCheck, "stopped: a gate refused"):
		rep.EndSkipped["a gate refused a restore (nothing written)"]++
	default:
		rep.EndSkipped[res.EndCheck]++
	}
	rep.Recoveries += res.Recoveries
	if len(res.Violations) > 0 {
		rep.Violations += len(res.Violations)
		rep.Failures = append(rep.Failures, Failure{Schedule: s, Violations: res.Violations, Log: res.Log, Dir: dir})
	}
}

func progressLine(s Schedule, res *Result, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("seed %d: ERROR: %v", s.Seed, err)
	case len(res.Violations) > 0:
		return fmt.Sprintf("seed %d: %d VIOLATIONS (%.1fs): %s", s.Seed, len(res.Violations), res.Seconds, res.Violations[0])
	}
	return fmt.Sprintf("seed %d: ok (%.1fs)\n  %s", s.Seed, res.Seconds, strings.Join(res.Log, "\n  "))
}

// Errors counts the schedules the harness could not run.
func (rep *Report) Errors() int {
	n := 0
	for _, f := range rep.Failures {
		if f.Err != nil {
			n++
		}
	}
	return n
}

// Write prints the report: the figures, then each failure with its seed
// and the command that replays it.
func (rep *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "chaos: %d schedules, %d steps, %d commands printed by stopped runs run, in %.0f s\n", rep.Schedules, rep.Steps, rep.Recoveries, rep.Seconds)
	var parts []string
	for _, f := range Faults {
		parts = append(parts, fmt.Sprintf("%s %d", f, rep.Injected[f]))
	}
	fmt.Fprintf(w, "faults injected: %s\n", strings.Join(parts, ", "))
	parts = parts[:0]
	for _, c := range Commands {
		parts = append(parts, fmt.Sprintf("%s %d", c, rep.Commands[c]))
	}
	fmt.Fprintf(w, "commands run with something to write: %s\n", strings.Join(parts, ", "))
	parts = parts[:0]
	for _, c := range Commands {
		parts = append(parts, fmt.Sprintf("%s %d", c, rep.Refused[c]))
	}
	fmt.Fprintf(w, "commands refused or with nothing to write (checked to write nothing): %s\n", strings.Join(parts, ", "))
	var skipped []string
	for why, n := range rep.EndSkipped {
		skipped = append(skipped, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(skipped)
	fmt.Fprintf(w, "every backup restored at the end, the seeded instance back: %d schedules (not compared: %s)\n", rep.EndChecks, strings.Join(skipped, "; "))
	fmt.Fprintf(w, "violations: %d (in %d schedules); harness errors: %d\n", rep.Violations, len(rep.Failures)-rep.Errors(), rep.Errors())
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "\n%s\n", f.Schedule)
		if f.Err != nil {
			fmt.Fprintf(w, "  harness error: %v\n", f.Err)
		}
		if rep.keep {
			fmt.Fprintf(w, "  kept: %s\n", f.Dir)
		}
		if f.Log != nil {
			fmt.Fprintf(w, "  %s\n", strings.Join(f.Log, "\n  "))
		}
		for _, v := range f.Violations {
			fmt.Fprintf(w, "  VIOLATION %s\n", v)
		}
		if rep.replay != "" {
			fmt.Fprintf(w, "  replay: "+rep.replay+"\n", f.Schedule.Seed)
		}
	}
}
