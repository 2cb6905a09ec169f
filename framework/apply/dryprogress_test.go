package apply_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// syncBuffer is a buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Issue 16 §8: a dry run's scan stages nothing, so it counts the keys it
// reads (Phases.Scan's read) and the kit shows them once it takes longer
// than a progress interval; the scan here waits until its count is shown.
func TestDryScanShowsProgress(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 3, "old")
	progress := &syncBuffer{}
	type counted struct{}
	noGates := func(context.Context, flipStore, int64) ([]framework.Gate, error) { return nil, nil }
	cmd := apply.Tuned(flipStore{cli}, apply.Phased(noGates, apply.Phases[flipStore, flipParams, *counted]{
		Context: func(context.Context, flipStore, *flipParams, int64) (*counted, error) { return &counted{}, nil },
		Header:  func(*counted) (apply.Header, string) { return apply.Header{Command: "count", RootPath: "r"}, "count" },
		Scan: func(_ *counted, _ context.Context, read func(int), _ func(apply.Op) error) error {
			read(3)
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(progress.String(), "scan: 3 keys"); {
				if time.Now().After(deadline) {
					return errors.New("no progress shown in 10 s")
				}
				time.Sleep(time.Millisecond)
			}
			return nil
		},
		View: func(*counted, []framework.Gate) *apply.Plan {
			return &apply.Plan{Command: "count", Title: "count", View: framework.Message("PLAN"), Root: "r", Put: "put", Nothing: "nothing to write"}
		},
	}), func(o *apply.Options) {
		o.Progress = progress
		o.ProgressInterval = time.Millisecond
	})
	_, stderr, code, err := shelltest.Run(t, []*framework.Command{cmd}, "flip")
	if err != nil || code != 0 {
		t.Fatalf("exit %d %v\n%s", code, err, stderr)
	}
	if out := progress.String(); !strings.Contains(out, "scan: 3 keys, ") || !strings.HasSuffix(out, "s\n") {
		t.Errorf("progress of the dry scan:\n%s", out)
	}
}
