package show

import (
	"slices"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
)

// Issue 10 §4: listings keyed by ids are in natural order (node 2 before
// node 10, collection 9 before collection 10), not in etcd's byte order.
func TestShowNewListingsNaturalOrder(t *testing.T) {
	e := empty(t)
	for _, node := range []string{"10", "2", "1"} {
		v := "by-dev-rootcoord-dml_" + node + "_100v0"
		e.put(models.ChannelWatchPrefix+node+"/"+v, channelWatchValue(100, v,
			sample.Position(v, sample.ID(commonpb.WALName_Kafka, 1), ts(1), commonpb.WALName_Kafka), nil, 2))
	}
	for _, coll := range []int64{10, 9, 100} {
		e.put(models.PartitionPrefix+i64(coll)+"/1", partitionValue(coll, 1, "_default", 0))
	}
	cw, _ := runJSON[ChannelWatchResult](e, "show channel-watch")
	var nodes []int64
	for _, w := range cw.Watches {
		nodes = append(nodes, w.Node)
	}
	if want := []int64{1, 2, 10}; !slices.Equal(nodes, want) {
		t.Errorf("channel-watch nodes in order %v, want %v", nodes, want)
	}
	ps, _ := runJSON[PartitionResult](e, "show partition")
	var colls []int64
	for _, p := range ps.Partitions {
		colls = append(colls, p.Collection)
	}
	if want := []int64{9, 10, 100}; !slices.Equal(colls, want) {
		t.Errorf("partitions in order %v, want %v", colls, want)
	}
}
