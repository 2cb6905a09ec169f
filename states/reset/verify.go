package reset

import (
	"bytes"
	"context"
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
)

const maxListedFailures = 20

// verify reads back, at the current revision and a page at a time, every key
// the reset covers and checks it: each position in scope decodes with the
// target's codec as its earliest id with WAL_name set to the target, no
// segment-assign record and no query target in scope is left, the mq.type
// overrides name the target, and the planner plans nothing more.
// It runs under the watchdog of apply.Run. A compaction past the revision it
// reads at (another writer and etcd's compactor) makes it read again at the
// new current revision, a few times.
func (pl *Plan) verify(ctx context.Context) (Verify, error) {
	for attempt := 1; ; attempt++ {
		v, err := pl.verifyOnce(ctx)
		if err == nil || !instance.IsCompacted(err) || attempt == maxVerifyReads {
			return v, err
		}
	}
}

// maxVerifyReads is how many times verify reads when etcd compacts under it.
const maxVerifyReads = 3

func (pl *Plan) verifyOnce(ctx context.Context) (Verify, error) {
	inst := pl.inst
	rev, err := inst.Revision(ctx)
	if err != nil {
		return Verify{}, err
	}
	v := Verify{Revision: rev, Failures: []string{}}
	fail := func(format string, a ...any) {
		v.FailuresTotal++
		if len(v.Failures) < maxListedFailures {
			v.Failures = append(v.Failures, fmt.Sprintf(format, a...))
		}
	}
	p := pl.planner
	codec, err := msgid.For(p.WAL)
	if err != nil {
		return v, err
	}
	checkPos := func(key, what string, pos *msgpb.MsgPosition) {
		v.Positions++
		if pos.GetWALName() != p.WAL {
			fail("%s %s: WAL_name is %s, want %s", key, what, pos.GetWALName(), p.WAL)
			return
		}
		id, err := codec.DecodeBytes(pos.GetMsgID())
		if err != nil || !id.IsEarliest() {
			fail("%s %s: msgID %x is not %s's earliest id (%v)", key, what, pos.GetMsgID(), p.WALName, err)
		}
	}
	check := func(e instance.Entry) error {
		d, err := p.Decide(e.Key, e.Value)
		if err != nil {
			fail("%s: %v", e.KV.Key, err)
			return nil
		}
		if d.Kind == "" {
			return nil
		}
		v.Keys++
		if d.Action != Keep {
			if d.AlterWAL != nil && e.Kind == models.KindConsumeCheckpoint {
				fail("%s: still has alter_wal_state (%s)", e.KV.Key, d.AlterWAL.Describe())
				return nil
			}
			fail("%s: the reset still plans to %s it", e.KV.Key, d.Action)
			return nil
		}
		if d.Reason == KeepOutOfScope || d.Reason == KeepDropped || d.Reason == KeepTombstone || d.Reason == KeepNoPosition {
			return nil
		}
		switch e.Kind {
		case models.KindConsumeCheckpoint:
			cp, _ := models.DecodeWALCheckpoint(e.Value)
			v.Positions++
			id, err := codec.DecodeText(cp.MessageID)
			if cp.WAL != p.WAL || err != nil || !id.IsEarliest() {
				fail("%s: message id %q (WAL %s) is not %s's earliest id", e.KV.Key, cp.MessageID, cp.WAL, p.WALName)
			}
			if cp.AlterWAL != nil {
				fail("%s: still has alter_wal_state (%s)", e.KV.Key, cp.AlterWAL.Describe())
			}
		case models.KindChannelCP:
			pos, _ := models.DecodePosition(e.Value)
			checkPos(e.KV.Key, "position", pos)
		case models.KindSegment:
			s, _ := models.DecodeSegmentInfo(e.Value)
			if s.StartPosition != nil {
				checkPos(e.KV.Key, "start_position", s.StartPosition)
			}
			if s.DMLPosition != nil {
				checkPos(e.KV.Key, "dml_position", s.DMLPosition)
			}
		case models.KindCollectionInfo, models.KindLegacyCollection, models.KindSnapshotCollection:
			c, _ := models.DecodeCollectionInfo(e.Value)
			for _, sp := range c.StartPositions {
				if !p.inScopeKey(sp.Key) {
					continue
				}
				v.Positions++
				id, err := codec.DecodeBytes(sp.Data)
				if err != nil || !id.IsEarliest() || !bytes.Equal(sp.Data, p.Target.Bytes()) {
					fail("%s: start position of %s is %x, not %s's earliest id", e.KV.Key, sp.Key, sp.Data, p.WALName)
				}
			}
		}
		return nil
	}
	steps := []struct {
		prefixes []string
		size     int
	}{
		{[]string{models.SegmentPrefix}, 0},
		{[]string{models.ChannelCPPrefix}, 0},
		{collectionPrefixes, collectionPageSize},
		{[]string{models.QueryTargetPrefix}, collectionPageSize},
		{[]string{models.WALPrefix}, 0},
	}
	for _, st := range steps {
		if err := walk(ctx, inst, rev, st.prefixes, st.size, check); err != nil {
			return v, err
		}
	}
	// Every spelling Milvus reads as mq.type must name the target, and one must exist.
	configs := 0
	_, err = inst.Scan(ctx, inst.Layout.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			if !pl.isMQTypeKey(kv.Key) {
				continue
			}
			configs++
			v.Keys++
			if d := p.DecideConfig(kv.Value); d.Action != Keep {
				fail("%s is %q, want %q", kv.Key, kv.Value, p.WALName)
			}
		}
		return nil
	})
	if err != nil {
		return v, err
	}
	if configs == 0 {
		fail("no mq.type override under %s: want %s = %q", inst.Layout.Root(models.ConfigPrefix), inst.Layout.Root(models.MQTypeConfigKey), p.WALName)
	}
	v.OK = v.FailuresTotal == 0
	return v, nil
}
