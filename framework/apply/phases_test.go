package apply_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// replayed is a context that holds a file open (an io.Closer), as apply
// --file's does.
type replayed struct{ replayed, closed bool }

func (r *replayed) Close() error { r.closed = true; return nil }

// Phases with Replay (apply --file): the kit reads no instance gates of its
// own (the replayed command's build reads them: twice otherwise), runs
// Replay with the stage instead of a scan of its own, shows the gates the
// command's Gates returns, and closes the context once Replay has read it.
func TestReplayPhases(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var instanceReads int
	instance := func(context.Context, flipStore, int64) ([]framework.Gate, error) {
		instanceReads++
		return []framework.Gate{{Name: "instance", OK: true}}, nil
	}
	build := apply.Phased(instance, apply.Phases[flipStore, flipParams, *replayed]{
		Context: func(context.Context, flipStore, *flipParams, int64) (*replayed, error) { return &replayed{}, nil },
		Replay: func(r *replayed, _ context.Context, st *apply.Stage) error {
			if r.closed || st == nil {
				return errors.New("replayed without its stage, or after its context was closed")
			}
			r.replayed = true
			return nil
		},
		Gates: func(r *replayed, _ context.Context) ([]framework.Gate, error) {
			return []framework.Gate{{Name: "the replayed command's", OK: r.replayed}}, nil
		},
		View: func(r *replayed, gs []framework.Gate) *apply.Plan {
			return &apply.Plan{Command: "replay", Title: "replay", View: framework.Message("PLAN"), Root: "r", Put: "put", Nothing: "nothing", Again: func(context.Context, *apply.Stage) (*apply.Plan, error) {
				if !r.closed {
					return nil, errors.New("the context is still open")
				}
				return nil, nil
			}}
		},
	})
	pl, err := build(context.Background(), flipStore{cli}, &flipParams{}, &apply.Stage{})
	require.NoError(t, err)
	assert.Zero(t, instanceReads, "the kit read the instance gates the replay reads")
	assert.Equal(t, []framework.Gate{{Name: "the replayed command's", OK: true}}, pl.Gates)
	_, err = pl.Again(context.Background(), nil)
	assert.NoError(t, err, "closed after the scan")
}
