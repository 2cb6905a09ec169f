package models_test

import (
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

// A VChannelMeta's collection_info written twice is merged, as proto does:
// its schemas add up (a NORMAL meta with none panics Milvus 2.6.0).
func TestDecodeVChannelMeta(t *testing.T) {
	m, err := models.DecodeVChannelMeta(sample.VChannelMeta("p_100v0", 100))
	if err != nil || !m.Normal || m.Collection != 100 || m.Schemas != 0 || m.VChannel != "p_100v0" {
		t.Fatalf("sample meta: %+v %v", m, err)
	}
	split := (&wire.Builder{}).String(1, "p_100v0").Varint(2, 1).
		Message(3, (&wire.Builder{}).Varint(1, 100).Build()).
		Message(3, (&wire.Builder{}).Message(3, sample.Schema("books")).Build()).Build()
	if m, err = models.DecodeVChannelMeta(split); err != nil || m.Collection != 100 || m.Schemas != 1 {
		t.Fatalf("merged collection_info: %+v %v", m, err)
	}
	dropped := (&wire.Builder{}).String(1, "p_100v0").Varint(2, 2).Build()
	if m, err = models.DecodeVChannelMeta(dropped); err != nil || m.Normal {
		t.Fatalf("dropped: %+v %v", m, err)
	}
	for _, bad := range [][]byte{{0xff}, (&wire.Builder{}).Varint(3, 1).Build()} {
		if _, err := models.DecodeVChannelMeta(bad); err == nil {
			t.Errorf("%x decodes", bad)
		}
	}
}
