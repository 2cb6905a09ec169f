package instance

import (
	"context"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Count counts at the revision asked for, under the prefix only.
func TestCountAtRevision(t *testing.T) {
	cli, endpoint := etcdtest.Start(t)
	in := New(cli, models.NewLayout("by-dev", "meta"), []string{endpoint})
	putAll(t, cli, []string{"by-dev/meta/a/1", "by-dev/meta/a/2", "by-dev/meta/ab", "by-dev/meta/b"})
	ctx := context.Background()
	rev, err := in.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	putAll(t, cli, []string{"by-dev/meta/a/3"})
	for _, c := range []struct {
		prefix string
		rev    int64
		want   int64
	}{{"by-dev/meta/a/", rev, 2}, {"by-dev/meta/a/", 0, 3}, {"by-dev/meta/a", rev, 3}, {"by-dev/meta/z", 0, 0}} {
		got, err := in.Count(ctx, c.prefix, c.rev)
		if err != nil || got != c.want {
			t.Errorf("Count(%q, %d) = %d, %v; want %d", c.prefix, c.rev, got, err, c.want)
		}
	}
}
