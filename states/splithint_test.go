package states

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// segmentHead reads windows bounded by collection keys; what it returns
// must be the prefix's head exactly, in key order, whatever those keys
// miss: segments of a collection with no collection key (before, between
// and after the listed ones), ids of other lengths (which sort as strings),
// and a run of collections that hold no segment.
func TestSegmentHeadIsThePrefixHead(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	layout := models.NewLayout("by-dev", "meta")
	segment := func(coll, seg int64) {
		v := sample.Segment{ID: seg, Collection: coll, Partition: 1, Channel: "by-dev-rootcoord-dml_0_1v0", Rows: 1}.Encode()
		_, err := cli.Put(ctx, layout.Meta(models.SegmentKey(coll, 1, seg)), string(v))
		require.NoError(t, err)
	}
	listed := func(coll int64) {
		v := sample.Collection{ID: coll, DB: 1, Name: "c"}.Encode()
		_, err := cli.Put(ctx, layout.Meta(models.CollectionInfoKey(1, coll)), string(v))
		require.NoError(t, err)
	}
	// Listed collections 1000 < 200 < 300 as strings; 3000..3599 listed and
	// empty; unlisted 150 (between 1000 and 200), 10 (first) and 9 (last).
	for _, c := range []int64{200, 300, 1000} {
		listed(c)
	}
	for c := int64(3000); c < 3600; c++ {
		listed(c)
	}
	for s := int64(1); s <= 3; s++ {
		segment(10, s)
		segment(150, 100+s)
		segment(1000, 200+s)
		segment(300, 300+s)
	}
	for s := int64(0); s < 240; s++ {
		segment(200, 1000+s)
	}
	for s := int64(0); s < 20; s++ {
		segment(9, 5000+s)
	}

	inst := instance.New(cli, layout, []string{ep})
	rev, err := inst.Revision(ctx)
	require.NoError(t, err)
	var got []string
	require.NoError(t, segmentHead(ctx, inst, rev, func(kv instance.KV) { got = append(got, kv.Key) }))

	resp, err := cli.Get(ctx, layout.Meta(models.SegmentPrefix), clientv3.WithPrefix(), clientv3.WithLimit(splitSample), clientv3.WithKeysOnly())
	require.NoError(t, err)
	var want []string
	for _, kv := range resp.Kvs {
		want = append(want, string(kv.Key))
	}
	require.Len(t, want, splitSample)
	assert.Equal(t, want, got)
	assert.Contains(t, got, layout.Meta(models.SegmentKey(9, 1, 5000)), "the unlisted collection after a run of empty ones")
}
