package states

import (
	"context"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

func values(cs []framework.Completion) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
}

// Issue 10 §3: --pchannel and --collection complete from the connected
// instance, cached per etcd revision.
func TestCompleteValuesFromTheInstance(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	in := sample.Build(layout, commonpb.WALName_Pulsar)
	ctx := context.Background()
	for k, v := range in.KVs {
		_, err := cli.Put(ctx, k, string(v))
		require.NoError(t, err)
	}
	var wantP []string
	var wantC int
	for k := range in.KVs {
		rel, _ := layout.Rel(k)
		switch key := models.Classify(rel); key.Kind {
		case models.KindConsumeCheckpoint:
			wantP = append(wantP, key.PChannel)
		case models.KindCollectionInfo, models.KindLegacyCollection:
			wantC++
		}
	}
	require.NotEmpty(t, wantP)
	c := &Connected{inst: instance.New(cli, layout, []string{ep})}
	var _ framework.ValueCompleter = c

	got := c.CompleteValues(ctx, CompletePChannel)
	assert.ElementsMatch(t, wantP, values(got))
	for i := 1; i < len(got); i++ {
		assert.True(t, lessNatural(got[i-1].Value, got[i].Value), "natural order: %v", values(got))
	}
	again := c.CompleteValues(ctx, CompletePChannel)
	require.NotEmpty(t, again)
	assert.Same(t, &got[0], &again[0], "same revision: served from the cache")

	colls := c.CompleteValues(ctx, CompleteCollection)
	assert.NotEmpty(t, colls)
	assert.LessOrEqual(t, len(colls), wantC)
	assert.Contains(t, values(colls), "100")
	for _, col := range colls {
		if col.Value == "100" {
			assert.NotEmpty(t, col.Note, "the collection's name beside its id")
		}
	}

	// Issue 16 §9: collections complete by name too: the names for --name,
	// and typing a name after --collection offers its id.
	assert.Contains(t, values(c.CompleteValues(ctx, CompleteCollectionName)), "books")
	sh := framework.NewShell(NewConnected(c.inst, ConnectedCommands(c.inst)), nil, nil)
	var ids []string
	for _, sg := range sh.Suggest("show segment --collection boo") {
		ids = append(ids, sg.Text)
	}
	assert.Equal(t, []string{"100"}, ids, "a collection's name completes to its id")

	_, err := cli.Put(ctx, layout.Meta(models.ConsumeCheckpointKey("by-dev-rootcoord-dml_99")), "x")
	require.NoError(t, err)
	assert.Contains(t, values(c.CompleteValues(ctx, CompletePChannel)), "by-dev-rootcoord-dml_99", "a new revision is read again")
	assert.Nil(t, c.CompleteValues(ctx, "nothing"))
	assert.Equal(t, []string{"Growing", "Sealed", "Flushed", "Flushing", "Dropped", "Importing"}, values(c.CompleteValues(ctx, CompleteSegmentState)))
}

func TestLessNatural(t *testing.T) {
	assert.True(t, lessNatural("dml_2", "dml_10"))
	assert.False(t, lessNatural("dml_10", "dml_2"))
	assert.True(t, lessNatural("9", "10"))
	assert.True(t, lessNatural("a", "b"))
	assert.True(t, lessNatural("dml", "dml_0"))
	assert.False(t, lessNatural("x", "x"))
}

// A read that fails yields no values, at once the next time too.
func TestCompleteValuesUnreachable(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	c := &Connected{inst: instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})}
	require.NoError(t, cli.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	assert.Nil(t, c.CompleteValues(ctx, CompletePChannel))
	start := time.Now()
	assert.Nil(t, c.CompleteValues(ctx, CompleteCollection))
	assert.Less(t, time.Since(start), 100*time.Millisecond)
}
