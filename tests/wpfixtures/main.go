package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/zilliztech/woodpecker/woodpecker"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"
)

// Scenarios, each in its own process: woodpecker's embedded log store is a process-wide
// singleton bound to the first client's object storage.
var scenarios = map[string]func(ctx context.Context, e *Env) ([]string, error){
	"milvus30": milvus30,
	"legacy":   legacy,
}

func main() {
	scenario := flag.String("scenario", "", "run one scenario and write its dump (internal)")
	out := flag.String("out", "../../states/resetwal/testdata", "directory of the JSON dumps")
	flag.Parse()
	if *scenario == "" {
		for _, name := range []string{"milvus30", "legacy"} {
			cmd := exec.Command(os.Args[0], "-scenario", name, "-out", *out)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "scenario %s: %v\n", name, err)
				os.Exit(1)
			}
		}
		return
	}
	if err := run(*scenario, *out); err != nil {
		fmt.Fprintf(os.Stderr, "scenario %s: %v\n", *scenario, err)
		os.Exit(1)
	}
}

func run(name, out string) error {
	f, ok := scenarios[name]
	if !ok {
		return fmt.Errorf("unknown scenario")
	}
	dir, err := os.MkdirTemp("", "wpfixtures-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := StartEnv(dir)
	if err != nil {
		return err
	}
	defer e.Close()
	notes, err := f(ctx, e)
	if err != nil {
		return err
	}
	kvs, objs, err := e.Snapshot(ctx)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(Dump{Scenario: name, Notes: notes, Etcd: kvs, Objects: objs}, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(out, "wp_"+name+".json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d etcd keys, %d objects -> %s\n", name, len(kvs), len(objs), path)
	return nil
}

// instanceLogs writes the logs of one Milvus instance whose pchannels start with prefix:
// dml_0 one segment, dml_1 one segment truncated at its last entry, dml_2 truncated and
// then its segment metadata removed (a truncated log without segments), dml_10 one
// segment (its name starts with dml_1), dml_3 written then deleted with DeleteLog (parked
// under logs-deleted/ by v0.1.32+).
func instanceLogs(ctx context.Context, c woodpecker.Client, prefix string) error {
	ch := func(i int) string { return fmt.Sprintf("%s-rootcoord-dml_%d", prefix, i) }
	for _, seg := range []string{"a"} {
		if _, err := WriteEntries(ctx, c, ch(0), 3, seg); err != nil {
			return err
		}
	}
	last, err := WriteEntries(ctx, c, ch(1), 4, "a")
	if err != nil {
		return err
	}
	if err := truncate(ctx, c, ch(1), last); err != nil {
		return err
	}
	last, err = WriteEntries(ctx, c, ch(2), 2, "a")
	if err != nil {
		return err
	}
	if err := truncate(ctx, c, ch(2), last); err != nil {
		return err
	}
	if err := dropSegments(ctx, c, ch(2)); err != nil {
		return err
	}
	if _, err := WriteEntries(ctx, c, ch(10), 2, "a"); err != nil {
		return err
	}
	if _, err := WriteEntries(ctx, c, ch(3), 2, "a"); err != nil {
		return err
	}
	if err := c.DeleteLog(ctx, ch(3)); err != nil {
		return fmt.Errorf("delete %s: %w", ch(3), err)
	}
	// A reader left open keeps its readers/{logId}/ key, as a live streaming node does.
	h, err := c.OpenLog(ctx, ch(0))
	if err != nil {
		return err
	}
	earliest := wplog.EarliestLogMessageID()
	if _, err := h.OpenLogReader(ctx, &earliest, "fixture-reader"); err != nil {
		return err
	}
	return nil
}

func truncate(ctx context.Context, c woodpecker.Client, logName string, id *wplog.LogMessageId) error {
	h, err := c.OpenLog(ctx, logName)
	if err != nil {
		return err
	}
	if err := h.Truncate(ctx, id); err != nil {
		return fmt.Errorf("truncate %s: %w", logName, err)
	}
	return nil
}

// dropSegments removes a log's segment metadata through woodpecker's metadata provider, what
// its segment clean-up does once truncated segments are gone.
func dropSegments(ctx context.Context, c woodpecker.Client, logName string) error {
	md := c.GetMetadataProvider()
	lm, err := md.GetLogMeta(ctx, logName)
	if err != nil {
		return err
	}
	segs, err := md.GetAllSegmentMetadata(ctx, logName)
	if err != nil {
		return err
	}
	for id, s := range segs {
		if err := md.DeleteSegmentMetadata(ctx, logName, lm.Metadata.GetLogId(), id, s.Metadata.GetState()); err != nil {
			return fmt.Errorf("delete segment %d of %s: %w", id, logName, err)
		}
	}
	return nil
}

// milvus30: Milvus 3.0 (woodpecker v0.1.37): metadata under {rootPath}/woodpecker/.
func milvus30(ctx context.Context, e *Env) ([]string, error) {
	cfg, err := e.Config("by-dev", "files")
	if err != nil {
		return nil, err
	}
	c, err := e.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := instanceLogs(ctx, c, "by-dev"); err != nil {
		return nil, err
	}
	return []string{"Milvus 3.0 settings: etcd.rootPath=by-dev, woodpecker.meta.prefix=woodpecker (effective by-dev/woodpecker), minio.rootPath=files (objects under files/wp/), bucket a-bucket"}, nil
}

// legacy: the top-level woodpecker/ prefix shared by two instances. The first client has
// an empty etcd root, so its configured prefix is woodpecker/ (what woodpecker before
// v0.1.30 always used); the second instance (rootPath other) finds the legacy keys and
// keeps using woodpecker/ (detectEffectiveMetadataPrefix).
func legacy(ctx context.Context, e *Env) ([]string, error) {
	cfg, err := e.Config("", "files")
	if err != nil {
		return nil, err
	}
	c, err := e.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := instanceLogs(ctx, c, "by-dev"); err != nil {
		return nil, err
	}
	other, err := e.Config("other", "files")
	if err != nil {
		return nil, err
	}
	c2, err := e.Open(ctx, other)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ {
		if _, err := WriteEntries(ctx, c2, fmt.Sprintf("other-rootcoord-dml_%d", i), 2, "other"); err != nil {
			return nil, err
		}
	}
	return []string{"legacy prefix woodpecker/ shared by instance by-dev and instance other (etcd.rootPath=other, effective prefix woodpecker/ by legacy detection); both with minio.rootPath=files, bucket a-bucket"}, nil
}
