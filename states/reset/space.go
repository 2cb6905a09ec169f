package reset

import (
	"context"

	"github.com/heron-shell/heron/states/gates"
)

// noteSpace sets the plan's etcd space line, the bytes the scan decided to
// write beside etcd's database size, and warns when the write takes the
// database near its quota.
func (pl *Plan) noteSpace(ctx context.Context, writeBytes int64) {
	pl.EtcdSpace = gates.EtcdSpace(ctx, pl.inst)
	if pl.EtcdSpace == nil {
		return
	}
	pl.EtcdSpace.WriteBytes = writeBytes
	if w := pl.EtcdSpace.Warning(); w != "" {
		pl.Warnings = append(pl.Warnings, w)
	}
}
