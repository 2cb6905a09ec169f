package instance

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Count returns how many keys lie under the absolute prefix at revision rev
// (0: the current one), without reading them.
func (in *Instance) Count(ctx context.Context, prefix string, rev int64) (int64, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCountOnly()}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	resp, err := in.Client.Get(ctx, prefix, opts...)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", prefix, err)
	}
	return resp.Count, nil
}
