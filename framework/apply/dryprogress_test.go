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
// reads (apply.ReadCounter) and shows them once it takes longer than a
// progress interval; the scan here waits until its count is shown.
func TestDryScanShowsProgress(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 3, "old")
	progress := &syncBuffer{}
	cmd := apply.Tuned(flipStore{cli}, func(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
		err := st.Scan(ctx, apply.Header{Command: "count", RootPath: "r"}, "count", func(ctx context.Context, yield func(apply.Op) error) error {
			apply.ReadCounter(ctx)(3)
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(progress.String(), "scan: 3 keys"); {
				if time.Now().After(deadline) {
					return errors.New("no progress shown in 10 s")
				}
				time.Sleep(time.Millisecond)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return flipBuild(ctx, s, p, new(apply.Stage))
	}, func(o *apply.Options) {
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
