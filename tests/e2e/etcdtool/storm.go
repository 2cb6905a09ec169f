package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// storm is an unrelated writer and etcd's revision compactor, as a busy
// Milvus etcd has them (issue 24, case 3): writers goroutines put keys
// under prefix (outside the instance's root) as fast as etcd takes them,
// and every interval etcd is compacted to its revision less retention
// (Milvus's --auto-compaction-mode revision --auto-compaction-retention
// 1000). It runs until SIGTERM or SIGINT, then prints what it did.
func storm(cli *clientv3.Client, prefix string, writers int, retention int64, interval time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var puts, compactions, last atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				if _, err := cli.Put(ctx, fmt.Sprintf("%s%d/%d", prefix, w, i%1000), "x"); err == nil {
					puts.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			resp, err := cli.Get(ctx, prefix, clientv3.WithCountOnly())
			if err != nil {
				continue
			}
			if rev := resp.Header.Revision - retention; rev > last.Load() {
				if _, err := cli.Compact(ctx, rev); err == nil {
					compactions.Add(1)
					last.Store(rev)
				}
			}
		}
	})
	fmt.Fprintf(os.Stderr, "storm: %d writers under %s, compacting to revision-%d every %s\n", writers, prefix, retention, interval)
	wg.Wait()
	fmt.Printf("storm: %d puts, %d compactions, the last to revision %d\n", puts.Load(), compactions.Load(), last.Load())
	return nil
}
