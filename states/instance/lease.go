package instance

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// LeaseTTLs reads the seconds each lease has left (etcd's TimeToLive), by
// lease id; a lease that expired since it was read has 0 s left.
func (in *Instance) LeaseTTLs(ctx context.Context, leases []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(leases))
	for _, l := range leases {
		if _, done := out[l]; done || l == 0 {
			continue
		}
		var resp *clientv3.LeaseTimeToLiveResponse
		err := in.bounded(ctx, func(ctx context.Context) error {
			var err error
			resp, err = in.cli.TimeToLive(ctx, clientv3.LeaseID(l))
			return err
		})
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			out[l] = 0
		case err != nil:
			return nil, err
		default:
			out[l] = max(resp.TTL, 0)
		}
	}
	return out, nil
}
