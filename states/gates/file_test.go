package gates

import (
	"context"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// A file of another root path is refused, with the re-run that fixes it;
// the command's own gates come between it and the instance gates.
func TestFileGates(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	for k, v := range sample.Build(layout, commonpb.WALName_Kafka).KVs {
		_, err := cli.Put(context.Background(), k, string(v))
		require.NoError(t, err)
	}
	inst := instance.New(cli, layout, []string{ep})
	own := framework.Gate{Name: "the command's own", OK: true}

	gs, err := FileGates(context.Background(), inst, 0, File{What: "backup", Made: "taken of", RootPath: "by-dev"}, own)
	require.NoError(t, err)
	require.Len(t, gs, 6)
	assert.Equal(t, framework.Gate{Name: "backup of this instance", OK: true, Detail: `the backup's root path "by-dev" is the instance's`}, gs[0])
	assert.Equal(t, own, gs[1])
	assert.Equal(t, NoAlarmName, gs[2].Name)
	for _, g := range gs {
		assert.True(t, g.OK, g.Name)
	}

	gs, err = FileGates(context.Background(), inst, 0, File{What: "plan", Made: "made for", RootPath: "other"})
	require.NoError(t, err)
	require.Len(t, gs, 5)
	assert.Equal(t, framework.Gate{Name: "plan of this instance", Detail: `the plan was made for root path "other", this instance is "by-dev"`,
		Fix: []framework.Step{{Order: framework.StepRerun, Text: "re-run connected to the instance the plan was made for (connect --rootPath other)"}}}, gs[0])
	assert.Equal(t, NoAlarmName, gs[1].Name)
}
