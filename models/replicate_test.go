package models_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/tests/sampletest"
)

// Issue 27 item 6: show replicate decodes the replicate configuration and
// a replicating pchannel from the bytes Milvus writes (streamingpb messages
// around commonpb ones), and never keeps a cluster's token.
func TestDecodeReplicateState(t *testing.T) {
	mustMarshal := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	secondary := &commonpb.MilvusCluster{ClusterId: "secondary", ConnectionParam: &commonpb.ConnectionParam{Uri: "http://b:19530", Token: "root:S3cret"},
		Pchannels: []string{"secondary-rootcoord-dml_0"}}
	cfg := mustMarshal(&commonpb.ReplicateConfiguration{
		Clusters:             []*commonpb.MilvusCluster{{ClusterId: "primary", Pchannels: []string{"by-dev-rootcoord-dml_0"}}, secondary},
		CrossClusterTopology: []*commonpb.CrossClusterTopology{{SourceClusterId: "primary", TargetClusterId: "secondary"}},
	})
	meta := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), cfg)
	meta = protowire.AppendVarint(protowire.AppendTag(meta, 3, protowire.VarintType), 1)
	c, err := models.DecodeReplicateConfig(meta)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 2 || c.Clusters[1].URI != "http://b:19530" || !c.Clusters[1].HasToken || c.Clusters[0].HasToken ||
		len(c.Topology) != 1 || c.Topology[0].Target != "secondary" || !c.ForcePromoted {
		t.Fatalf("configuration: %+v", c)
	}
	if strings.Contains(fmt.Sprintf("%+v", c), "S3cret") {
		t.Fatal("the token is kept")
	}

	id := msgid.WoodpeckerID{Segment: 3, Entry: 7}
	pm := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "by-dev-rootcoord-dml_0")
	pm = protowire.AppendString(protowire.AppendTag(pm, 2, protowire.BytesType), "secondary-rootcoord-dml_0")
	pm = protowire.AppendBytes(protowire.AppendTag(pm, 3, protowire.BytesType), mustMarshal(secondary))
	pm = protowire.AppendBytes(protowire.AppendTag(pm, 4, protowire.BytesType), mustMarshal(&commonpb.ReplicateCheckpoint{
		ClusterId: "primary", Pchannel: "by-dev-rootcoord-dml_0", TimeTick: 470817350615040000,
		MessageId: &commonpb.MessageID{WALName: commonpb.WALName_WoodPecker, Id: id.Text()}}))
	p, err := models.DecodeReplicatingPChannel(pm)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "by-dev-rootcoord-dml_0" || p.Target != "secondary-rootcoord-dml_0" || p.TargetCluster.ID != "secondary" ||
		p.Initialized == nil || p.Initialized.WAL != "woodpecker" || p.Initialized.MessageID != "3:7" {
		t.Fatalf("replicating pchannel: %+v %+v", p, p.Initialized)
	}
	if _, err := models.DecodeReplicatingPChannel([]byte{0xff}); err == nil {
		t.Fatal("garbage decodes")
	}
}

// replicate_configuration written twice is merged as proto decodes it; one
// of another wire type does not decode.
func TestDecodeReplicateConfigShapes(t *testing.T) {
	twice := append(sampletest.ReplicateConfiguration("by-dev", "standby"), sampletest.ReplicateConfiguration("dr")...)
	c, err := models.DecodeReplicateConfig(twice)
	if err != nil || !c.HasCluster("standby") || !c.HasCluster("dr") || len(c.Topology) != 1 {
		t.Fatalf("merged configuration: %+v, %v", c, err)
	}
	if _, err := models.DecodeReplicateConfig([]byte{0x08, 0x01}); err == nil {
		t.Fatal("a varint replicate_configuration decodes")
	}
}
