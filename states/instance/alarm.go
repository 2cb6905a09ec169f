package instance

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Alarm is an alarm raised on one etcd member: NOSPACE (its database reached
// --quota-backend-bytes: every write is refused) or CORRUPT.
type Alarm struct {
	Member uint64
	Type   string
}

// Alarms lists the alarms raised in the cluster.
func (in *Instance) Alarms(ctx context.Context) ([]Alarm, error) {
	var resp *clientv3.AlarmResponse
	err := in.bounded(ctx, func(ctx context.Context) (err error) {
		resp, err = in.cli.AlarmList(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list etcd alarms: %w", err)
	}
	var out []Alarm
	for _, a := range resp.Alarms {
		if a.Alarm == etcdserverpb.AlarmType_NONE {
			continue
		}
		out = append(out, Alarm{Member: a.MemberID, Type: a.Alarm.String()})
	}
	return out, nil
}

// MemberSpace is the database size of one etcd member (Maintenance Status).
type MemberSpace struct {
	Endpoint string
	// DBSize is the database file's size, DBSizeInUse the part of it in
	// use (the rest is free pages a defragment returns), Quota the member's
	// --quota-backend-bytes (0: the member does not report it; etcd before
	// 3.6).
	DBSize, DBSizeInUse, Quota int64
	// Revision is the member's current revision.
	Revision int64
}

// Space reads the database size of every endpoint heron connected to; an
// endpoint that does not answer is left out (nil when none answers).
func (in *Instance) Space(ctx context.Context) ([]MemberSpace, error) {
	var out []MemberSpace
	var firstErr error
	for _, ep := range in.Endpoints {
		var st *clientv3.StatusResponse
		err := in.bounded(ctx, func(ctx context.Context) (err error) {
			st, err = in.cli.Status(ctx, ep)
			return err
		})
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("etcd status of %s: %w", ep, err)
			}
			continue
		}
		out = append(out, MemberSpace{Endpoint: ep, DBSize: st.DbSize, DBSizeInUse: st.DbSizeInUse,
			Quota: st.DbSizeQuota, Revision: st.Header.GetRevision()})
	}
	if len(out) == 0 {
		return nil, firstErr
	}
	return out, nil
}

// UserName is the etcd user heron connected as ("" without auth): messages
// about permissions name it.
func (in *Instance) UserName() string { return in.User }
