package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// inflightStore is flip's store whose transactions take a while and
// count how many are committing at once.
type inflightStore struct {
	flipStore
	mu       sync.Mutex
	now, max int
}

func (s *inflightStore) Txn(ctx context.Context) clientv3.Txn {
	return &etcdtest.HookedTxn{Txn: s.Client.Txn(ctx), Hook: func(commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error) {
		s.mu.Lock()
		s.now++
		s.max = max(s.max, s.now)
		s.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		defer func() {
			s.mu.Lock()
			s.now--
			s.mu.Unlock()
		}()
		return commit()
	}}
}

// --max-inflight K lets at most K transactions of a phase commit at once
// (1: one after the other), the run document says K, and the default is
// apply.DefaultConcurrency; a K out of 1..16 is a usage error and writes
// nothing.
func TestMaxInflight(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	dir := t.TempDir()
	for _, c := range []struct {
		flag string
		want int
	}{{"--max-inflight 1", 1}, {"--max-inflight 3", 3}, {"", apply.DefaultConcurrency}} {
		seedKeys(t, cli, 24, fmt.Sprint("old", c.want))
		s := &inflightStore{flipStore: flipStore{cli}}
		cmds := []*framework.Command{apply.Command(s, func(ctx context.Context, s *inflightStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
			return flipBuild(ctx, s.flipStore, p, st)
		})}
		out, errs, code, _ := shelltest.Run(t, cmds, "flip --run --yes --format json --max-txn-ops 2 --backup-dir "+dir+" "+c.flag)
		if code != framework.ExitOK {
			t.Fatalf("%q: exit %d\n%s", c.flag, code, errs)
		}
		// The writes' transactions only: the verify reads none back.
		if s.max != c.want {
			t.Errorf("%q: %d transactions in flight at most, want %d", c.flag, s.max, c.want)
		}
		var doc struct {
			Applied struct {
				MaxInflight int `json:"max_inflight"`
				Txns        int `json:"txns"`
			} `json:"applied"`
		}
		_, js, _ := strings.Cut(out, "{")
		if err := json.Unmarshal([]byte("{"+js), &doc); err != nil {
			t.Fatalf("%q: %v\n%s", c.flag, err, out)
		}
		if doc.Applied.MaxInflight != c.want || doc.Applied.Txns != 12 {
			t.Errorf("%q: the run document says max_inflight %d in %d transactions, want %d in 12", c.flag, doc.Applied.MaxInflight, doc.Applied.Txns, c.want)
		}
	}
	r0 := revision(t, cli)
	for _, k := range []string{"0", "17", "-1"} {
		_, errs, code, _ := shelltest.Run(t, []*framework.Command{apply.Command(flipStore{cli}, flipBuild)}, "flip --run --yes --value x --max-inflight "+k+" --backup-dir "+dir)
		if code != framework.ExitUsage || !strings.Contains(errs, "--max-inflight must be from 1 to 16, got "+k) {
			t.Errorf("--max-inflight %s: exit %d, %s", k, code, errs)
		}
	}
	if revision(t, cli) != r0 {
		t.Error("a refused --max-inflight wrote")
	}
}
