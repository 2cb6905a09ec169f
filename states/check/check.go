// Package check is `check`: after a WAL switch (heron's offline reset or
// Milvus's online switch), is the restarted instance really running on its
// new WAL? It reads the metastore only, once or (--watch) at an interval,
// and judges named items, one row each: ok, WARN or FAIL, what was seen,
// what to do and the exact keys. Exit 1 when any item FAILs.
package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/show"
	"github.com/heron-shell/heron/states/targetcheck"
)

// Params are the flags of `check`.
type Params struct {
	framework.ParamBase `use:"check" desc:"after a WAL switch: pchannel assignment, WAL names, progress, replay of old data, broadcast tasks, vchannel registration, recovery storage schemas, stale replicating pchannels (read-only; exit 1 on FAIL, with the repair's command)" example:"check --since-backup heron-backup-by-dev-full.jsonl --watch --for 1m"`
	TargetWAL           string `name:"target-wal" placeholder:"WAL" desc:"the WAL the instance switched to (default: the one most consume checkpoints name)"`
	SinceBackup         string `name:"since-backup" placeholder:"FILE" desc:"a heron backup taken before the switch: its time, pchannel terms and time ticks are the pre-switch state"`
	Watch               bool   `name:"watch" desc:"read again every --interval for --for and compare the reads"`
	Interval            string `name:"interval" default:"10s" placeholder:"DURATION" desc:"with --watch: time between reads"`
	For                 string `name:"for" default:"" placeholder:"DURATION" desc:"with --watch: how long to watch (default: one interval, two reads)"`
	Online              bool   `name:"online" desc:"follow Milvus's online switch (alter_wal_state stages, the AlterWAL broadcast's acks, config/mqtype)"`
	StuckAfter          string `name:"stuck-after" default:"5m" placeholder:"DURATION" desc:"stuck: a broadcast task in flight unchanged this long across reads, an online-switch stage this long after the switch message"`
	MaxLag              string `name:"max-lag" placeholder:"DURATION" desc:"channel checkpoint max lag (default: the instance's dataCoord.compaction.channelMaxCPLag, else 900s)"`
	targetcheck.KafkaFlags
	framework.Output
}

func duration(flag, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, framework.Usagef("check: --%s %q is not a positive duration (10s, 5m)", flag, s)
	}
	return d, nil
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if p.TargetWAL != "" {
		if _, err := msgid.Parse(p.TargetWAL); err != nil {
			return framework.Usagef("check: --target-wal %q: %v", p.TargetWAL, err)
		}
	}
	if _, err := duration("interval", p.Interval); err != nil {
		return err
	}
	if _, err := duration("stuck-after", p.StuckAfter); err != nil {
		return err
	}
	if p.For != "" {
		if !p.Watch {
			return framework.Usagef("check: --for goes with --watch")
		}
		if _, err := duration("for", p.For); err != nil {
			return err
		}
	}
	if _, err := show.ParseMaxLag(p.MaxLag); err != nil {
		return err
	}
	if p.Kafka() && p.TargetWAL != "" && p.TargetWAL != "kafka" {
		return framework.Usagef("check: --kafka-brokers reads a Kafka target, not --target-wal %s", p.TargetWAL)
	}
	return p.KafkaFlags.Validate("check")
}

// Commands are the check command on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{framework.Read(inst, run)}
}

// ErrFailed is returned (after the result is printed) when an item FAILs.
var ErrFailed = errors.New("check: FAIL")

func run(ctx context.Context, inst *instance.Instance, p *Params, out framework.IO) (framework.Result, error) {
	// heron's long GC pace (framework.PaceGC) buys a reset's CPU with
	// memory; check decides little per segment, so the default pace keeps
	// its RSS near a few pages (measured at 100k segments: 120 MiB at 400,
	// about 70 at 100).
	defer framework.HoldGC(100)()
	interval, _ := duration("interval", p.Interval)
	stuck, _ := duration("stuck-after", p.StuckAfter)
	watchFor := interval
	if p.For != "" {
		watchFor, _ = duration("for", p.For)
	}
	override, _ := show.ParseMaxLag(p.MaxLag)
	o := Options{StuckAfter: stuck, Online: p.Online, meta: inst.Layout.Meta, root: inst.Layout.Root}
	// The backup is read from disk while the first read waits on etcd
	// (at a million segments each takes seconds).
	var before chan error
	if p.SinceBackup != "" {
		before = make(chan error, 1)
		go func() {
			b, err := readBefore(p.SinceBackup, inst.Layout)
			o.Before = b
			before <- err
		}()
	}
	var reads []*Snapshot
	n := 0
	start := time.Now()
	for {
		s, err := read(ctx, inst)
		if before != nil {
			berr := <-before
			before = nil
			if err == nil {
				err = berr
			}
		}
		if err != nil {
			return nil, err
		}
		reads, n = keep(reads, s, o), n+1
		if !p.Watch || time.Since(start) >= watchFor {
			break
		}
		fmt.Fprintf(out.Stderr, "check: read %d at revision %d; next in %s\n", n, s.State.Revision, interval)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
	last := reads[len(reads)-1]
	for _, e := range last.State.Errors {
		fmt.Fprintf(out.Stderr, "warning: %s\n", framework.EscapeText(e))
	}
	if p.TargetWAL != "" {
		o.Target, _ = msgid.Parse(p.TargetWAL)
		o.TargetFrom = "--target-wal"
	} else {
		o.Target, o.TargetFrom = majorityWAL(last.State)
	}
	o.MaxLag, _ = last.State.MaxLag(override, out.Stderr)
	if o.Before != nil && o.Target != commonpb.WALName_Unknown {
		sc, err := scanSegments(ctx, inst, last.State.Revision, o.Before.Created, o.Target)
		if err != nil {
			return nil, err
		}
		last.Segments = sc
		if o.Target == commonpb.WALName_WoodPecker {
			if last.Woodpecker, err = readWoodpecker(ctx, inst, last.State); err != nil {
				return nil, err
			}
		}
	}
	if p.Kafka() {
		if o.Target != commonpb.WALName_Kafka {
			return nil, fmt.Errorf("check: --kafka-brokers reads a Kafka target, and the target is %s (%s)", msgid.Name(o.Target), o.TargetFrom)
		}
		kc, err := p.KafkaConfig()
		if err != nil {
			return nil, err
		}
		if last.Kafka, err = readKafka(ctx, kc, last.State); err != nil {
			return nil, err
		}
	}
	res := Judge(reads, o)
	res.Reads = n
	if res.Verdict == Fail {
		var failed []string
		for _, it := range res.Items {
			if it.Verdict == Fail {
				failed = append(failed, it.Name)
			}
		}
		return res, fmt.Errorf("%w: %s", ErrFailed, strings.Join(failed, ", "))
	}
	return res, nil
}

// Result is the output of `check`.
type Result struct {
	Verdict    string `json:"verdict"`
	Reads      int    `json:"reads"`
	Revision   int64  `json:"revision"`
	TargetWAL  string `json:"target_wal"`
	TargetFrom string `json:"target_from"`
	Since      string `json:"since,omitempty"`
	Items      []Item `json:"items"`
}

// Judge is every item over the reads: a pure function of what was read.
func Judge(reads []*Snapshot, o Options) *Result {
	if o.meta == nil {
		o.meta = func(s string) string { return s }
	}
	if o.root == nil {
		o.root = o.meta
	}
	last := reads[len(reads)-1]
	res := &Result{Reads: len(reads), Revision: last.State.Revision, TargetWAL: msgid.Name(o.Target), TargetFrom: o.TargetFrom}
	if o.Before != nil {
		res.Since = o.Before.Created.Format(time.RFC3339)
	}
	res.Items = []Item{assignment(reads, o), walNames(reads, o), progress(reads, o), replay(reads, o), broadcastTasks(reads, o), registration(reads, o),
		recoveryStorage(reads, o), replicatePChannels(reads, o)}
	if o.Online {
		res.Items = append(res.Items, onlineSwitch(reads, o))
	}
	res.Verdict = OK
	for _, it := range res.Items {
		if rank(it.Verdict) > rank(res.Verdict) {
			res.Verdict = it.Verdict
		}
	}
	return res
}

// JSON implements framework.Result.
func (r *Result) JSON() any { return r }

// Table implements framework.Result: one row per item (verdict, item,
// what was seen), then the keys at fault, what to do and the repairs'
// commands, each whole on a line of its own.
func (r *Result) Table(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "check: %s (target WAL %s, %s; %d read(s), revision %d)\n", r.Verdict, r.TargetWAL, r.TargetFrom, r.Reads, r.Revision)
	for _, it := range r.Items {
		fmt.Fprintf(&sb, "%-4s  %-21s  %s\n", it.Verdict, it.Name, framework.EscapeText(it.Seen))
		if it.Verdict == OK {
			continue
		}
		for _, k := range it.Keys {
			fmt.Fprintf(&sb, "      key: %s\n", framework.EscapeText(k))
		}
		fmt.Fprintf(&sb, "      do: %s\n", framework.EscapeText(it.Do))
		if err := show.WriteCommands(&sb, "      ", it.Commands); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// Lines implements framework.Result: one line per item and one per
// repair command of its, then the verdict.
func (r *Result) Lines(w io.Writer) error {
	for _, it := range r.Items {
		if err := framework.WriteLine(w, "kind", "check", "item", it.Name, "verdict", it.Verdict, "seen", it.Seen, "do", it.Do,
			"keys", strings.Join(it.Keys, ",")); err != nil {
			return err
		}
		for _, c := range it.Commands {
			if err := framework.WriteLine(w, "kind", "command", "item", it.Name, "command", c); err != nil {
				return err
			}
		}
	}
	return framework.WriteLine(w, "kind", "summary", "verdict", r.Verdict, "reads", r.Reads, "target_wal", r.TargetWAL)
}
