package instance

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Items come back in the order added with their key's value at the batch's
// revision (the zero KV for an absent key), size keys a read.
func TestBatch(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	for i := range 4 {
		_, err := cli.Put(ctx, fmt.Sprintf("k%d", i), "old")
		require.NoError(t, err)
	}
	resp, err := cli.Put(ctx, "k0", "new")
	require.NoError(t, err)
	rev := resp.Header.Revision - 1
	inst := New(cli, models.NewLayout("by-dev", "meta"), []string{ep})

	var got []string
	b := NewBatch(inst, rev, 2, func(n int) string { return fmt.Sprintf("k%d", n) }, func(n int, kv KV) error {
		got = append(got, fmt.Sprintf("%d=%s", n, kv.Value))
		return nil
	})
	for _, n := range []int{3, 0, 9, 1, 2} {
		require.NoError(t, b.Add(ctx, n))
	}
	assert.Equal(t, []string{"3=old", "0=old", "9=", "1=old"}, got, "two full batches read, the fifth item waits")
	require.NoError(t, b.Flush(ctx))
	require.NoError(t, b.Flush(ctx), "nothing left: no read")
	assert.Equal(t, []string{"3=old", "0=old", "9=", "1=old", "2=old"}, got)
}
