package instance

import (
	"context"
	"fmt"
	"iter"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Load batches: etcd refuses a transaction of more than --max-txn-ops ops
// (128 by default) and a request over --max-request-bytes (1.5 MiB by
// default). A batch closes at LoadBatchOps puts or once it holds
// loadBatchBytes; a put larger than that goes alone.
const (
	LoadBatchOps   = 128
	loadBatchBytes = 1 << 20
)

// Load puts every key and value kvs yields (keys absolute), in transactions
// of at most LoadBatchOps puts, and returns the revision after the last one
// (0 when kvs is empty). It seeds an etcd that heron owns (the demo, a copy
// loaded from a backup, tests): it reads nothing first and guards nothing,
// unlike the write commands, which go through framework/apply. kvs may stream
// (a backup file): Load holds one batch at a time; a source that fails stops
// yielding and reports its error itself (what it yielded is written).
func (in *Instance) Load(ctx context.Context, kvs iter.Seq2[string, []byte]) (int64, error) {
	cli := in.cli
	var (
		ops     []clientv3.Op
		size    int
		rev     int64
		written int
		first   string // the batch's first key, for the message
	)
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		resp, err := cli.Txn(ctx).Then(ops...).Commit()
		if err != nil {
			return fmt.Errorf("load into etcd at %s: %d keys written, then %d from %s: %w",
				strings.Join(in.Endpoints, ","), written, len(ops), first, err)
		}
		written += len(ops)
		rev, ops, size = resp.Header.Revision, ops[:0], 0
		return nil
	}
	for k, v := range kvs {
		n := len(k) + len(v)
		if len(ops) > 0 && size+n > loadBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
		if len(ops) == 0 {
			first = k
		}
		ops = append(ops, clientv3.OpPut(k, string(v)))
		size += n
		if len(ops) == LoadBatchOps || size >= loadBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return rev, nil
}
