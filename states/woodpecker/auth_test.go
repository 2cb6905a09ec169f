package woodpecker

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// A user granted only the root path cannot read the legacy woodpecker/:
// heron decides as woodpecker does on a failed read (the configured prefix)
// and says so; the prefix is marked unreadable.
func TestLegacyPrefixNotReadable(t *testing.T) {
	f := newFixture(t, "by-dev")
	ctx := context.Background()
	f.put("woodpecker/logidgen", []byte("1"))
	f.wpLog("by-dev/woodpecker", f.pc(0), 1, -1, -1, 0)
	for _, step := range []func() error{
		func() error { _, err := f.cli.RoleAdd(ctx, "root"); return err },
		func() error { _, err := f.cli.UserAdd(ctx, "root", "pw"); return err },
		func() error { _, err := f.cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := f.cli.RoleAdd(ctx, "milvus"); return err },
		func() error {
			_, err := f.cli.RoleGrantPermission(ctx, "milvus", "by-dev/", clientv3.GetPrefixRangeEnd("by-dev/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := f.cli.UserAdd(ctx, "milvus", "pw"); return err },
		func() error { _, err := f.cli.UserGrantRole(ctx, "milvus", "milvus"); return err },
		func() error { _, err := f.cli.AuthEnable(ctx); return err },
	} {
		require.NoError(t, step())
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: f.cli.Endpoints(), Username: "milvus", Password: "pw", DialTimeout: 30 * time.Second})
	require.NoError(t, err)
	defer cli.Close()
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), f.cli.Endpoints())
	inv, err := Find(ctx, inst, 0, Options{PChannels: map[string]bool{f.pc(0): true}})
	require.NoError(t, err)
	assert.Equal(t, ReasonDefault, inv.Effective.Reason)
	assert.Contains(t, inv.Effective.Note, "the legacy prefix woodpecker/ is not readable by this user")
	var legacy Prefix
	for _, p := range inv.Prefixes {
		if p.Prefix == "woodpecker" {
			legacy = p
		}
	}
	assert.False(t, legacy.Readable)
	assert.NotEmpty(t, legacy.Error)
	assert.Len(t, inv.InstanceLogs(nil), 1, "the readable prefixes are still read")
}
