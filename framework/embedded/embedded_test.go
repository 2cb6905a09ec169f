package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The member snapshots every snapshotCount entries, which lets etcd drop the
// raft log it keeps in memory (all of it, with etcd's default of 100,000: a
// load-backup held every transaction it had written, issue 16 item 13). A
// snapshot file in member/snap/ after a few hundred transactions shows it.
func TestRaftLogIsCompactedEarly(t *testing.T) {
	dir := t.TempDir()
	srv, err := Start(dir)
	require.NoError(t, err)
	defer srv.Close()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	defer cli.Close()
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		_, err := cli.Put(ctx, fmt.Sprintf("k/%04d", i), "v")
		require.NoError(t, err)
	}
	snaps := func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "member", "snap", "*.snap"))
		return len(m) > 0
	}
	require.Eventually(t, snaps, 30*time.Second, 50*time.Millisecond, "no raft snapshot after 300 entries")
	_, err = os.Stat(filepath.Join(dir, "member", "snap", "db"))
	require.NoError(t, err)
}
