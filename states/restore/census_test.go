package restore

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// segmentReads records the revisions of the reads of ranges of segment
// values a client sends (a walk, as the census's; not a get of one key, as
// the advice of a failed check reads the keys created since), in a range
// request or a transaction.
type segmentReads struct {
	prefix, end string
	mu          sync.Mutex
	revs        []int64
}

func (s *segmentReads) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var ranges []*etcdserverpb.RangeRequest
	switch r := req.(type) {
	case *etcdserverpb.RangeRequest:
		ranges = append(ranges, r)
	case *etcdserverpb.TxnRequest:
		for _, op := range append(r.Success, r.Failure...) {
			if rr := op.GetRequestRange(); rr != nil {
				ranges = append(ranges, rr)
			}
		}
	}
	for _, r := range ranges {
		if !r.CountOnly && !r.KeysOnly && s.overlaps(string(r.Key), string(r.RangeEnd)) {
			s.mu.Lock()
			s.revs = append(s.revs, r.Revision)
			s.mu.Unlock()
		}
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// overlaps: the range [key, end) (end "\x00": every key from key on) holds
// keys under the segment prefix; end "" is a get of one key.
func (s *segmentReads) overlaps(key, end string) bool {
	switch end {
	case "":
		return false
	case "\x00":
		return key < s.end
	}
	return key < s.end && end > s.prefix
}

// after counts the reads at a revision after rev (0: the current one).
func (s *segmentReads) after(rev int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.revs {
		if r == 0 || r > rev {
			n++
		}
	}
	return n
}

// Issue 25: the split-state check after a restore (a reset's backup asks
// for it) counts every segment's positions. A run whose scan read every
// segment key tallies them there, and its verify, proven by the run's own
// revisions, reads no segment again: at a million segments that read cost
// about as much as the scan. The tally still finds a split state: a segment
// created since among the backed-up ones (its scan's spans read it). One
// created outside the file's key ranges is not read by the scan: the count
// of the segment keys shows it, and the verify reads them all again.
func TestRestoreSplitCheckFromTheScan(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct {
		name string
		// created names the key of a segment created since the reset, from
		// the segments' keys in order ("": none).
		created func(segments []string) string
		tallied bool
	}{
		{"nothing created", nil, true},
		{"created among the backed-up", func(s []string) string { return s[1][:strings.LastIndexByte(s[1], '/')+1] + "999999" }, true},
		{"created beyond them", func(s []string) string {
			root, _, _ := strings.Cut(s[0], models.SegmentPrefix)
			return root + models.SegmentPrefix + "99999999/1/1"
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, cli, ep, "by-dev-"+strings.ReplaceAll(c.name, " ", "-"))
			backup := e.resetRun()
			ctx := context.Background()
			force := ""
			if c.created != nil {
				var segments []string
				after := e.dump()
				for k := range after {
					if rel, ok := e.inst.Layout.Rel(k); ok && models.Classify(rel).Kind == models.KindSegment {
						segments = append(segments, k)
					}
				}
				if len(segments) < 2 {
					t.Fatalf("sample: %d segments", len(segments))
				}
				slices.Sort(segments)
				key := c.created(segments)
				if rel, _ := e.inst.Layout.Rel(key); models.Classify(rel).Kind != models.KindSegment {
					t.Fatalf("%s is not a segment key", key)
				}
				// Milvus on the reset's WAL: the positions of a reset segment.
				if _, err := cli.Put(ctx, key, after[segments[1]]); err != nil {
					t.Fatal(err)
				}
				force = " --force-moved-on"
			}
			reads := &segmentReads{prefix: e.inst.Layout.Meta(models.SegmentPrefix)}
			reads.end = clientv3.GetPrefixRangeEnd(reads.prefix)
			counted, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 30 * time.Second,
				DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(reads.intercept)}})
			if err != nil {
				t.Fatal(err)
			}
			defer counted.Close()
			e.inst = instance.New(counted, e.inst.Layout, []string{ep})
			planned := e.rev()

			out, errs, code := e.run("restore --file " + backup + " --run --backup-dir " + e.dir + force)
			if c.created == nil {
				if code != 0 || !strings.Contains(out, "verify: ok") {
					t.Fatalf("exit %d\n%s\n%s", code, out, errs)
				}
			} else if code != framework.ExitFailed || !strings.Contains(errs, "the instance is in a split state on") {
				t.Fatalf("a segment on the reset's WAL left: exit %d\n%s\n%s", code, out, errs)
			}
			if n := reads.after(planned); c.tallied && n > 0 {
				t.Fatalf("the verify read segments again (%d reads after revision %d)", n, planned)
			} else if !c.tallied && n == 0 {
				t.Fatalf("the scan did not read every segment, yet the verify read none")
			}
			if len(reads.revs) == 0 {
				t.Fatalf("no segment read recorded: the interceptor sees nothing")
			}
		})
	}
}
