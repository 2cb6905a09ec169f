package gates

import (
	"slices"
	"testing"

	"github.com/heron-shell/heron/models"
)

// A file's writer is its recorded planner, or for an older file the write
// command its command line starts with; what each writes comes from the
// layout; an unknown command has no scope.
func TestWriteScope(t *testing.T) {
	l := models.NewLayout("by-dev", "meta")
	for _, c := range []struct {
		planner, line, writer string
		scope                 []string
	}{
		{"reset checkpoint", "anything", "reset checkpoint", []string{"by-dev/meta/", "by-dev/config/"}},
		{"", "reset checkpoint --target-wal kafka --run", "reset checkpoint", []string{"by-dev/meta/", "by-dev/config/"}},
		{"", "reset wal --target woodpecker --run", "reset wal", []string{"by-dev/", "woodpecker/"}},
		{"", "apply --file p.jsonl --run", "apply", []string{"by-dev/", "woodpecker/"}},
		{"", "restore --file b.jsonl --run", "restore", []string{"by-dev/", "woodpecker/"}},
		{"", "reset checkpointx", "", nil},
		{"", "backup --prefix meta", "", nil},
		{"reset everything", "reset checkpoint", "reset everything", nil},
	} {
		w := Writer(c.planner, c.line)
		scope, ok := WriteScope(l, w)
		if w != c.writer || ok != (c.scope != nil) || !slices.Equal(scope, c.scope) {
			t.Errorf("%q %q: writer %q scope %v %v", c.planner, c.line, w, scope, ok)
		}
	}
}
